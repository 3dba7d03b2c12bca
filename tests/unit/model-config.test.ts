import { afterEach, describe, expect, it } from "vitest";
import { embeddingConfig, modelConfig } from "@/lib/settings/config";

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

function configWith(env: Record<string, string | undefined>) {
  process.env = {
    ...saved,
    OPENAI_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    TOOLSMITH_MODEL_API: undefined,
    ANTHROPIC_API_KEY: undefined,
    ANTHROPIC_BASE_URL: undefined,
    TOOLSMITH_MODEL: undefined,
    TOOLSMITH_THINKING_TOKENS: undefined,
    ...env,
  };
  return modelConfig();
}

describe("the model dialect", () => {
  it.each([
    [{ OPENAI_API_KEY: "sk" }, "chat"],
    [{ OPENAI_BASE_URL: "https://api.openai.com/v1", OPENAI_API_KEY: "sk" }, "chat"],
    [{ OPENAI_BASE_URL: "http://localhost:11434/v1" }, "compatible"],
    [{ OPENAI_BASE_URL: "https://openrouter.ai/api/v1", OPENAI_API_KEY: "sk" }, "compatible"],
    [{ OPENAI_BASE_URL: "http://localhost:1234/v1", TOOLSMITH_MODEL_API: "chat" }, "chat"],
    [{ OPENAI_API_KEY: "sk", TOOLSMITH_MODEL_API: "responses" }, "responses"],
    // Claude: its key and a claude- model, whatever OpenAI server is also set; its key alone; or chosen.
    [{ ANTHROPIC_API_KEY: "sk-ant", TOOLSMITH_MODEL: "claude-sonnet-4-5" }, "anthropic"],
    [{ ANTHROPIC_API_KEY: "sk-ant", TOOLSMITH_MODEL: "claude-sonnet-4-5", OPENAI_API_KEY: "sk" }, "anthropic"],
    [
      { ANTHROPIC_API_KEY: "sk-ant", TOOLSMITH_MODEL: "claude-x", OPENAI_BASE_URL: "http://localhost:11434/v1" },
      "anthropic",
    ],
    [{ ANTHROPIC_API_KEY: "sk-ant" }, "anthropic"],
    [{ ANTHROPIC_BASE_URL: "http://127.0.0.1:8080/v1", TOOLSMITH_MODEL_API: "anthropic" }, "anthropic"],
    // Both keys and an OpenAI model: OpenAI's.
    [{ ANTHROPIC_API_KEY: "sk-ant", OPENAI_API_KEY: "sk", TOOLSMITH_MODEL: "gpt-4.1-mini" }, "chat"],
  ])("%o → %s", (env, api) => expect(configWith(env)?.api).toBe(api));

  it("takes SEAT's names: ollama on its port, a key for the provider named", () => {
    expect(configWith({ LLM_PROVIDER: "ollama", LLM_MODEL: "qwen3" })).toMatchObject({
      api: "compatible",
      baseURL: "http://localhost:11434/v1",
      model: "qwen3",
    });
    expect(
      configWith({ LLM_PROVIDER: "anthropic", LLM_API_KEY: "sk-ant", LLM_MODEL: "claude-sonnet-4-5" }),
    ).toMatchObject({ api: "anthropic", apiKey: "sk-ant", model: "claude-sonnet-4-5" });
    expect(configWith({ LLM_PROVIDER: "openai", LLM_API_KEY: "sk" })).toMatchObject({ api: "chat", apiKey: "sk" });
  });

  it("gives Claude its own key, server and thinking budget, and no embeddings", () => {
    const claude = {
      ANTHROPIC_API_KEY: "sk-ant",
      ANTHROPIC_BASE_URL: "https://proxy.example/v1",
      OPENAI_API_KEY: "sk",
      TOOLSMITH_MODEL: "claude-sonnet-4-5",
      TOOLSMITH_EMBEDDING_MODEL: "text-embedding-3-small",
    };
    expect(configWith(claude)).toMatchObject({
      api: "anthropic",
      apiKey: "sk-ant",
      baseURL: "https://proxy.example/v1",
      model: "claude-sonnet-4-5",
      thinkingTokens: 4096,
    });
    expect(embeddingConfig()).toBeUndefined();
    expect(configWith({ ...claude, TOOLSMITH_THINKING_TOKENS: "0" })?.thinkingTokens).toBe(0);
    expect(() => configWith({ ...claude, TOOLSMITH_THINKING_TOKENS: "512" })).toThrow(
      /TOOLSMITH_THINKING_TOKENS must be 0 \(off\), or 1024 tokens or more/,
    );
    // The same embedding model with OpenAI as the chat model: embeddings on.
    configWith({ OPENAI_API_KEY: "sk", TOOLSMITH_EMBEDDING_MODEL: "text-embedding-3-small" });
    expect(embeddingConfig()).toMatchObject({ model: "text-embedding-3-small", api: "chat" });
  });

  it("says what is wrong with a base URL or a dialect it cannot use", () => {
    expect(() => configWith({ OPENAI_BASE_URL: "localhost:11434" })).toThrow(
      /OPENAI_BASE_URL must be an http\(s\) URL/,
    );
    expect(() => configWith({ OPENAI_API_KEY: "sk", TOOLSMITH_MODEL_API: "ollama" })).toThrow(
      /chat, compatible, responses or anthropic/,
    );
  });
});
