import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { ModelConfig } from "@/lib/config";

/**
 * chat (default): @ai-sdk/openai over Chat Completions, which OpenAI and every compatible server speak.
 * compatible: @ai-sdk/openai-compatible, for servers that stream `reasoning_content` (Ollama, vLLM, DeepSeek).
 * responses: OpenAI's Responses API.
 */
export function languageModel(model: ModelConfig): LanguageModel {
  if (model.api === "compatible") {
    return createOpenAICompatible({
      name: "openai-compatible",
      baseURL: model.baseURL ?? "https://api.openai.com/v1",
      apiKey: model.apiKey,
      includeUsage: true,
    }).chatModel(model.model);
  }
  const openai = createOpenAI({ apiKey: model.apiKey ?? "not-needed", baseURL: model.baseURL });
  return model.api === "responses" ? openai.responses(model.model) : openai.chat(model.model);
}
