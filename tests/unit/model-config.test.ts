import { afterEach, describe, expect, it } from "vitest";
import { modelConfig } from "@/lib/settings/config";

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

  it("says what is wrong with a base URL or a dialect it cannot use", () => {
    expect(() => configWith({ OPENAI_BASE_URL: "localhost:11434" })).toThrow(
      /OPENAI_BASE_URL must be an http\(s\) URL/,
    );
    expect(() => configWith({ OPENAI_API_KEY: "sk", TOOLSMITH_MODEL_API: "ollama" })).toThrow(
      /chat, compatible, responses or anthropic/,
    );
  });
});
