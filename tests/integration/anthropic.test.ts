// Claude as the model: the production server against a scripted Anthropic Messages API (tests/support/anthropic-server.ts),
// which streams Anthropic's own SSE bytes: extended thinking with signatures, tool use, pings, errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LoggedEvent } from "@/lib/contract/events";
import { applyEvents, emptyTrace, type TraceEvent } from "@/lib/trace/state";
import { costOf, runTokens } from "@/lib/trace/timing";
import { AnthropicServer, defaultSignature, type ClaudeBlock, type ClaudeRequest } from "../support/anthropic-server";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { readSse, type SseMessage } from "../support/sse";

const claude = new AnthropicServer();
let app: AppServer;
let api: Api;
const PRICE = { input: 3, output: 15 };

beforeAll(async () => {
  await claude.start();
  // An OpenAI server is configured too: a claude- model with ANTHROPIC_API_KEY is Claude's all the same.
  app = scriptedApp("http://127.0.0.1:9/v1", {
    ANTHROPIC_API_KEY: "test-anthropic-key",
    ANTHROPIC_BASE_URL: claude.url,
    TOOLSMITH_MODEL: "claude-sonnet-4-5",
    TOOLSMITH_MODEL_RETRIES: "2",
    TOOLSMITH_MAX_STEPS: "4",
    TOOLSMITH_MODEL_PRICES: JSON.stringify({ "claude-sonnet-4-5": PRICE }),
  });
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await claude.stop();
});

const joined = (events: SseMessage[], type: string) =>
  ofType(events, type)
    .map((event) => event.delta)
    .join("");
const assistantTurns = (request: ClaudeRequest) =>
  request.messages.filter((message) => message.role === "assistant").map((message) => message.content as ClaudeBlock[]);

async function run(prompt: string) {
  const conversation = await api.createConversation();
  const events = await api.run(conversation.id, prompt);
  return { conversation, events };
}

describe("Claude through Anthropic's Messages API", () => {
  it("sees an attached image as an image block, and reads the paragraph about the files", async () => {
    const prompt = "What is in this picture?";
    claude.script(prompt, [{ text: "A dot." }]);
    const conversation = await api.createConversation();
    const form = new FormData();
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    form.append("file", new Blob([png]), "dot.png");
    const upload = await api.fetch(`/api/conversations/${conversation.id}/files`, { method: "POST", body: form });
    const [file] = ((await upload.json()) as { files: { id: string }[] }).files;
    const sent = await api.fetch(`/api/conversations/${conversation.id}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ content: prompt, files: [file.id] }),
    });
    expect((await readSse(sent)).at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    const [request] = claude.requestsFor(prompt);
    const blocks = request.messages.at(-1)!.content as ClaudeBlock[];
    expect(blocks[0]).toMatchObject({ type: "text", text: prompt });
    expect(blocks[1]).toMatchObject({ type: "text", text: expect.stringContaining("/dot.png (image/png, 70 bytes)") });
    expect(blocks[2]).toMatchObject({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: png.toString("base64") },
    });
  });

  it("thinks, calls a tool, answers; the thinking goes back signed, ahead of its tool_use", async () => {
    const prompt = "What is 6 times 7? Think first.";
    claude.script(prompt, [
      {
        thinking: "I should use the calculator for 6*7.",
        toolCalls: [{ name: "calculate", args: { expression: "6*7" } }],
      },
      { thinking: "The calculator said 42.", text: "6 times 7 is **42**." },
    ]);
    const { conversation, events } = await run(prompt);

    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    // The thinking is in the trace, as reasoning, step by step.
    expect(joined(events, "reasoning_delta")).toBe("I should use the calculator for 6*7.The calculator said 42.");
    expect(ofType(events, "reasoning_delta").filter((event) => event.signature)).toHaveLength(2);
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "calculate", ok: true, output: 42 });
    expect(joined(events, "text_delta")).toBe("6 times 7 is **42**.");

    const [first, second] = claude.requestsFor(prompt);
    // The request as Anthropic takes it: thinking on with its budget, tools with input_schema objects.
    expect(first).toMatchObject({
      model: "claude-sonnet-4-5",
      stream: true,
      thinking: { type: "enabled", budget_tokens: 4096 },
    });
    expect(first.max_tokens).toBeGreaterThan(4096);
    const calculate = first.tools!.find((tool) => tool.name === "calculate")!;
    expect(calculate.input_schema).toMatchObject({ type: "object", properties: { expression: expect.anything() } });
    // Step 2 carries step 1's thinking block, with its signature, before the tool_use it led to.
    const [turn] = assistantTurns(second);
    expect(turn.map((block) => block.type)).toEqual(["thinking", "tool_use"]);
    expect(turn[0]).toEqual({
      type: "thinking",
      thinking: "I should use the calculator for 6*7.",
      signature: defaultSignature("I should use the calculator for 6*7."),
    });
    expect(turn[1]).toMatchObject({ name: "calculate", input: { expression: "6*7" } });
    const results = second.messages.at(-1)!.content as ClaudeBlock[];
    expect(results[0]).toMatchObject({ type: "tool_result", tool_use_id: turn[1].id });

    // Tokens and cost in the timeline, from the stored log: 25 in and 15 out a step, at the configured price.
    const replayed = await readSse(await api.events(conversation.id));
    const trace = applyEvents(
      emptyTrace,
      replayed.map((event) => ({ ...(event.data as LoggedEvent), id: event.id! }) as TraceEvent),
    );
    const tokens = runTokens(trace.runs[0]);
    expect(tokens).toEqual({ input: 50, output: 30, uncounted: 0 });
    expect(costOf(tokens, PRICE)).toBeCloseTo((50 * 3 + 30 * 15) / 1e6, 12);
    expect(trace.runs[0].steps[0].reasoning).toBe("I should use the calculator for 6*7.");
    // The title is the person's first line, whatever the model.
    expect((await api.conversation(conversation.id)).title).toBe(prompt);
  });

  it("sends the signed thinking back from the stored log in the next turn, and redacted thinking as it came", async () => {
    const prompt = "Count to three, then call the calculator.";
    const next = "And now add one.";
    claude.script(prompt, [
      {
        redacted: "ENCRYPTED-THINKING",
        thinking: "Counting: one, two, three.",
        signature: "sig-counted",
        toolCalls: [{ name: "calculate", args: { expression: "3" } }],
      },
      { text: "One, two, three." },
    ]);
    claude.script(next, [{ thinking: "3 + 1.", text: "Four." }]);
    const { conversation, events } = await run(prompt);
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
    expect(ofType(events, "reasoning_delta").find((event) => event.redacted)).toMatchObject({
      delta: "",
      redacted: "ENCRYPTED-THINKING",
    });
    await api.run(conversation.id, next);

    // The history of the second turn is rebuilt from the stored log, as a run taken over rebuilds its own.
    const [request] = claude.requestsFor(next);
    const [turn] = assistantTurns(request);
    expect(turn.slice(0, 3)).toEqual([
      { type: "redacted_thinking", data: "ENCRYPTED-THINKING" },
      { type: "thinking", thinking: "Counting: one, two, three.", signature: "sig-counted" },
      expect.objectContaining({ type: "tool_use", name: "calculate" }),
    ]);
  });

  it("registers a tool with Claude, then calls it: offered with its input_schema from the next step", async () => {
    const prompt = "How many words are in 'a b c d e'?";
    const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
    claude.script(prompt, [
      {
        thinking: "No tool counts words; I will write one.",
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "claude_word_count",
              description: "Count the words in a text.",
              parameters_schema: schema,
              code: "function run({ text }) { return { words: text.trim().split(/\\s+/).length }; }",
            },
          },
        ],
      },
      { thinking: "Now I call it.", toolCalls: [{ name: "claude_word_count", args: { text: "a b c d e" } }] },
      { text: "There are 5 words." },
    ]);
    const { events } = await run(prompt);
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
    expect(ofType(events, "tool_registered")[0]).toMatchObject({ tool: { name: "claude_word_count" } });
    expect(ofType(events, "tool_result")[1]).toMatchObject({
      name: "claude_word_count",
      ok: true,
      output: { words: 5 },
    });

    const requests = claude.requestsFor(prompt);
    expect(requests.map((request) => request.tools!.some((tool) => tool.name === "claude_word_count"))).toEqual([
      false,
      true,
      true,
    ]);
    expect(requests[1].tools!.find((tool) => tool.name === "claude_word_count")!.input_schema).toMatchObject(schema);
    // The third request: both earlier steps, each with its signed thinking ahead of its tool_use.
    expect(assistantTurns(requests[2]).map((turn) => turn.map((block) => block.type))).toEqual([
      ["thinking", "tool_use"],
      ["thinking", "tool_use"],
    ]);
  });

  it("writes a tool from a description with Claude: a forced write_tool call, without thinking", async () => {
    const description = "Double a number (Claude).";
    const definition = {
      name: "claude_double",
      description: "Double a number.",
      parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      code: "function run({ n }) { return n * 2; }",
      examples: [{ input: { n: 21 }, expected_output: 42 }],
    };
    claude.script(description, [{ toolCalls: [{ name: "write_tool", args: definition }] }]);
    const created = await expectJson(
      await api.fetch("/api/tools/generate", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ description }),
      }),
      201,
    );
    expect(created).toMatchObject({ name: "claude_double", tested: true });
    const [request] = claude.requestsFor(description);
    expect(request).toMatchObject({
      tool_choice: { type: "tool", name: "write_tool" },
      thinking: { type: "disabled" },
    });
    expect(request.tools).toEqual([
      expect.objectContaining({ name: "write_tool", input_schema: expect.objectContaining({ type: "object" }) }),
    ]);
    expect((await expectJson(await sendJson(api, `/api/tools/${created.id}`, "GET"), 200)).code).toBe(definition.code);
  });

  it("retries a 529 (overloaded) that came before the stream", async () => {
    const prompt = "Answer despite the load.";
    let attempts = 0;
    claude.script(prompt, () => (attempts++ === 0 ? { status: 529 } : { text: "Answered on the second try." }));
    const { events } = await run(prompt);
    expect(events.at(-1)!.data).toMatchObject({ status: "completed" });
    expect(joined(events, "text_delta")).toBe("Answered on the second try.");
    expect(claude.requestsFor(prompt)).toHaveLength(2);
  });

  it("says so when Claude is overloaded mid-answer (event: error), without a retry that would repeat the text", async () => {
    const prompt = "Fail while answering.";
    claude.script(prompt, [{ overloadedAfter: "I was saying" }]);
    const { conversation, events } = await run(prompt);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "error" });
    expect(ofType(events, "error")[0]).toEqual({
      type: "error",
      code: "model_error",
      message:
        "The model server stopped its answer with an error (overloaded_error): Overloaded. Send the message again to retry.",
      runId: expect.any(String),
      at: expect.any(Number),
    });
    expect(joined(events, "text_delta")).toBe("I was saying");
    expect(claude.requestsFor(prompt)).toHaveLength(1);
    const stored = await api.conversation(conversation.id);
    expect(stored.messages.map((message: { role: string }) => message.role)).toEqual(["user"]);
  });

  it("reports a 529 that outlasts the retries with Anthropic's own reason", async () => {
    const prompt = "Always overloaded.";
    claude.script(prompt, () => ({ status: 529 }));
    const { events } = await run(prompt);
    expect(ofType(events, "error")[0]).toMatchObject({
      code: "model_http_error",
      message: "The model server answered 529: Overloaded",
    });
    expect(claude.requestsFor(prompt)).toHaveLength(3);
  });
});
