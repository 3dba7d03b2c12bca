import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { extractReasoningMiddleware, wrapLanguageModel, type LanguageModel } from "ai";
import type { ModelConfig } from "@/lib/settings/config";
import { IdleTimeout, type StepRequest } from "./model-step";

/** A run's connection to its model: the client, its silence limit (reset by every byte received) and retries. */
export interface ModelSession {
  model: LanguageModel;
  idle: IdleTimeout;
  maxRetries: number;
  /** What the agent's steps ask of the dialect beyond the messages: Claude's extended thinking. */
  providerOptions?: StepRequest["providerOptions"];
  /** A step may not require a tool call (tool choice): Anthropic refuses it while thinking, so it is said instead. */
  refusesToolChoice?: boolean;
}

export function openModel(config: ModelConfig, idleTimeoutMs: number): ModelSession {
  const idle = new IdleTimeout(idleTimeoutMs);
  return {
    model: languageModel(config, () => idle.reset()),
    idle,
    maxRetries: config.maxRetries,
    providerOptions: config.api === "anthropic" ? { anthropic: thinking(config.thinkingTokens ?? 0) } : undefined,
    refusesToolChoice: config.api === "anthropic" && (config.thinkingTokens ?? 0) > 0,
  };
}

/**
 * Claude's extended thinking, by budget. The SDK adds the budget to max_tokens, and makes it adaptive for models that
 * only think that way. With thinking, Anthropic refuses a forced tool choice, so the tool writer turns it off.
 */
export const thinking = (budgetTokens: number) =>
  budgetTokens > 0
    ? { thinking: { type: "enabled" as const, budgetTokens } }
    : { thinking: { type: "disabled" as const } };

/**
 * The client for the configured dialect (TOOLSMITH_MODEL_API, whose meanings docs/configuration.md's table gives), with
 * `<think>…</think>` routed to reasoning (R1 distills, Qwen3 without a reasoning parser). `onBytes` hears every chunk.
 */
export function languageModel(model: ModelConfig, onBytes: () => void): LanguageModel {
  const fetch = fetchReportingBytes(onBytes);
  const base =
    model.api === "anthropic"
      ? createAnthropic({ apiKey: model.apiKey ?? "not-needed", baseURL: model.baseURL, fetch }).messages(model.model)
      : model.api === "compatible"
        ? createOpenAICompatible({
            name: "openai-compatible",
            baseURL: model.baseURL ?? "https://api.openai.com/v1",
            apiKey: model.apiKey,
            includeUsage: true,
            fetch,
          }).chatModel(model.model)
        : model.api === "responses"
          ? createOpenAI({ apiKey: model.apiKey ?? "not-needed", baseURL: model.baseURL, fetch }).responses(model.model)
          : createOpenAI({ apiKey: model.apiKey ?? "not-needed", baseURL: model.baseURL, fetch }).chat(model.model);
  return wrapLanguageModel({ model: base, middleware: extractReasoningMiddleware({ tagName: "think" }) });
}

function fetchReportingBytes(onBytes: () => void): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await globalThis.fetch(input, init);
    if (!response.body) return response;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onBytes();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
