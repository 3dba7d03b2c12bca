import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer, STREAM_DONE, STREAM_ROLE, streamChunk } from "../support/model-server";
import type { SseMessage } from "../support/sse";

const model = new ModelServer();
let apps: Record<"default" | "chat", AppServer>;

beforeAll(async () => {
  await model.start();
  // Default settings with a non-OpenAI base URL (what a new Ollama/vLLM/LM Studio user has), and the strict client.
  apps = {
    default: scriptedApp(model.url, { TOOLSMITH_MODEL_TIMEOUT_MS: "1000" }),
    chat: scriptedApp(model.url, { TOOLSMITH_MODEL_TIMEOUT_MS: "1000", TOOLSMITH_MODEL_API: "chat" }),
  };
  await Promise.all(Object.values(apps).map((app) => app.start()));
});
afterAll(async () => {
  await Promise.all(Object.values(apps).map((app) => app.stop()));
  await model.stop();
});

async function run(
  api: "default" | "chat",
  prompt: string,
): Promise<{ events: SseMessage[]; stored: { messages: { role: string; content: string }[] } }> {
  const client = new Api(apps[api].url);
  const conversation = await client.createConversation();
  const events = await client.run(conversation.id, prompt);
  return { events, stored: await client.conversation(conversation.id) };
}
const joined = (events: SseMessage[], type: string) =>
  ofType(events, type)
    .map((event) => event.delta)
    .join("");
const finish = (events: SseMessage[]) => events.at(-1)!.data;
const errorOf = (events: SseMessage[]) =>
  ofType(events, "error")[0] as unknown as { code: string; message: string } | undefined;

describe("models people run locally", () => {
  it("keeps a model that reasons for longer than the idle timeout, and streams its reasoning_content", async () => {
    const thinking = Array.from({ length: 8 }, (_, i) => [
      streamChunk({ reasoning_content: `thought ${i}. ` }),
      300,
    ]).flat();
    model.script("Think for a while.", [
      {
        raw: [
          STREAM_ROLE,
          ...thinking,
          streamChunk({ content: "Done thinking." }),
          streamChunk({}, "stop"),
          STREAM_DONE,
        ],
      },
    ]);
    const { events, stored } = await run("default", "Think for a while.");
    expect(finish(events)).toMatchObject({ type: "run_finished", status: "completed" });
    expect(joined(events, "reasoning_delta")).toBe(Array.from({ length: 8 }, (_, i) => `thought ${i}. `).join(""));
    expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "Done thinking." });
  });

  it.each(["default", "chat"] as const)(
    "counts SSE comments as life (%s client): 2.4 s of ': OPENROUTER PROCESSING' is not silence",
    async (api) => {
      const prompt = `Queue at the router (${api}).`;
      const processing = Array.from({ length: 8 }, () => [": OPENROUTER PROCESSING\n\n", 300]).flat();
      model.script(prompt, [
        {
          raw: [...processing, STREAM_ROLE, streamChunk({ content: "Routed." }), streamChunk({}, "stop"), STREAM_DONE],
        },
      ]);
      const { events } = await run(api, prompt);
      expect(finish(events)).toMatchObject({ status: "completed" });
      expect(joined(events, "text_delta")).toBe("Routed.");
    },
  );

  it("still fails a server that sends nothing at all after the idle timeout", async () => {
    model.script("Say nothing at all.", [{ raw: [5000] }]);
    const { events } = await run("default", "Say nothing at all.");
    expect(errorOf(events)?.message).toContain("nothing for 1000 ms");
  });

  it("reads the `reasoning` field too (the compatible default)", async () => {
    model.script("Reason in the other field.", [
      {
        raw: [
          STREAM_ROLE,
          streamChunk({ reasoning: "via reasoning." }),
          streamChunk({ content: "Yes." }),
          streamChunk({}, "stop"),
          STREAM_DONE,
        ],
      },
    ]);
    const { events } = await run("default", "Reason in the other field.");
    expect(joined(events, "reasoning_delta")).toBe("via reasoning.");
    expect(finish(events)).toMatchObject({ status: "completed" });
  });

  it("calls a tool sent without `index` (older Ollama) with the default client; the strict client says what to change", async () => {
    const prompt = "Call without an index.";
    const call = streamChunk({
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "calculate", arguments: '{"expression":"6 * 7"}' } },
      ],
    });
    model.script(prompt, [{ raw: [STREAM_ROLE, call, streamChunk({}, "tool_calls"), STREAM_DONE] }, { text: "42." }]);
    const compatible = await run("default", prompt);
    expect(ofType(compatible.events, "tool_result")[0]).toMatchObject({ name: "calculate", ok: true, output: 42 });
    expect(finish(compatible.events)).toMatchObject({ status: "completed" });

    const strict = await run("chat", prompt);
    const error = errorOf(strict.events)!;
    expect(error.message).toContain("TOOLSMITH_MODEL_API=compatible");
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).not.toContain("chat.completion.chunk");
  });

  it.each(["default", "chat"] as const)(
    "ends the run with an error on OpenRouter's in-stream error (%s client), without storing a partial answer",
    async (api) => {
      const prompt = `Fail mid-stream (${api}).`;
      const failure = streamChunk({ content: "" }, "error", {
        error: { code: 502, message: "Provider returned error" },
      });
      model.script(prompt, [
        {
          raw: [": OPENROUTER PROCESSING\n\n", STREAM_ROLE, streamChunk({ content: "Partial" }), failure, STREAM_DONE],
        },
      ]);
      const { events, stored } = await run(api, prompt);
      expect(finish(events)).toMatchObject({ type: "run_finished", status: "error" });
      expect(errorOf(events)?.code).toBe("model_error");
      expect(stored.messages.map((message) => message.role)).toEqual(["user"]);
    },
  );

  it.each(["default", "chat"] as const)(
    "routes <think>…</think> in the content to reasoning (%s client)",
    async (api) => {
      const prompt = `Think in tags (${api}).`;
      model.script(prompt, [
        {
          raw: [
            STREAM_ROLE,
            streamChunk({ content: "<think>Let me" }),
            streamChunk({ content: " see.</think>The answer" }),
            streamChunk({ content: " is 4." }),
            streamChunk({}, "stop"),
            STREAM_DONE,
          ],
        },
      ]);
      const { events, stored } = await run(api, prompt);
      expect(joined(events, "reasoning_delta")).toBe("Let me see.");
      expect(joined(events, "text_delta")).toBe("The answer is 4.");
      expect(stored.messages.at(-1)).toMatchObject({ role: "assistant", content: "The answer is 4." });
    },
  );

  it.each(["default", "chat"] as const)(
    "treats a stream that stops mid-answer without finish_reason or [DONE] as an error (%s client)",
    async (api) => {
      const prompt = `Stop mid-answer (${api}).`;
      model.script(prompt, [{ raw: [STREAM_ROLE, streamChunk({ content: "The answer is" })] }]);
      const { events, stored } = await run(api, prompt);
      expect(finish(events)).toMatchObject({ status: "error" });
      expect(stored.messages.map((message) => message.role)).toEqual(["user"]);
    },
  );

  it.each([
    [
      "vLLM",
      400,
      "application/json",
      JSON.stringify({
        object: "error",
        message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens.",
        type: "BadRequestError",
        param: null,
        code: 400,
      }),
      "maximum context length is 4096 tokens",
    ],
    [
      "LM Studio",
      404,
      "application/json",
      JSON.stringify({ error: "Model 'qwen-9000' not found" }),
      "Model 'qwen-9000' not found",
    ],
    [
      "OpenAI",
      401,
      "application/json",
      JSON.stringify({ error: { message: "Incorrect API key provided.", type: "invalid_request_error" } }),
      "Incorrect API key provided.",
    ],
    [
      "a proxy",
      502,
      "text/html",
      "<html><body><h1>502 Bad Gateway</h1><script>alert(1)</script></body></html>",
      "502: Bad Gateway",
    ],
  ])("shows %s's own error message", async (server, status, contentType, body, expected) => {
    const prompt = `Error from ${server}.`;
    model.script(prompt, [{ raw: [body], status, contentType }]);
    for (const api of ["default", "chat"] as const) {
      const { events } = await run(api, prompt);
      const error = errorOf(events)!;
      expect(error).toMatchObject({ code: "model_http_error" });
      expect(error.message).toContain(expected);
      expect(error.message).not.toMatch(/<html|<script|at \w+ \(/);
    }
  });
});
