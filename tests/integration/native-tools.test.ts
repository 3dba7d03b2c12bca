import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const model = new ModelServer();
let app: AppServer;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url);
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

let prompts = 0;
/** One run in which the model makes these calls; their results, in call order. */
async function call(client: Api, conversationId: string, ...calls: { name: string; args: Record<string, unknown> }[]) {
  const prompt = `Native tools, run ${++prompts}.`;
  model.script(prompt, [{ toolCalls: calls }, { text: "Done." }]);
  const events = await client.run(conversationId, prompt);
  // Calls run in parallel: match each result to its call.
  const results = ofType(events, "tool_result");
  return ofType(events, "tool_call").map((toolCall) => results.find((result) => result.callId === toolCall.callId)!);
}

describe("key_value tools", () => {
  it("keep JSON values per conversation, or in a named namespace of one person, and forget expired keys", async () => {
    const alice = new Api(app.url);
    const [a, b] = [await alice.createConversation(), await alice.createConversation()];
    const [stored] = await call(alice, a.id, {
      name: "key_value_set",
      args: { key: "colour", value: { name: "teal", rgb: [0, 128, 128] } },
    });
    expect(stored).toMatchObject({ ok: true, output: { stored: true, expires_at: null } });
    expect((await call(alice, a.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { found: true, value: { name: "teal", rgb: [0, 128, 128] } },
    });
    // another conversation has its own keys
    expect((await call(alice, b.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { found: false },
    });

    // a named namespace is shared by the person's conversations, and by nobody else's
    await call(alice, a.id, { name: "key_value_set", args: { key: "plan", value: "ship it", namespace: "team" } });
    expect(
      (await call(alice, b.id, { name: "key_value_get", args: { key: "plan", namespace: "team" } }))[0],
    ).toMatchObject({ output: { found: true, value: "ship it" } });
    const bob = new Api(app.url);
    const theirs = await bob.createConversation();
    expect(
      (await call(bob, theirs.id, { name: "key_value_get", args: { key: "plan", namespace: "team" } }))[0],
    ).toMatchObject({ output: { found: false } });

    await call(alice, a.id, { name: "key_value_set", args: { key: "soon", value: 1, ttl_seconds: 1 } });
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect((await call(alice, a.id, { name: "key_value_get", args: { key: "soon" } }))[0]).toMatchObject({
      output: { found: false },
    });

    expect((await call(alice, a.id, { name: "key_value_delete", args: { key: "colour" } }))[0]).toMatchObject({
      output: { deleted: true },
    });
    expect((await call(alice, a.id, { name: "key_value_get", args: { key: "colour" } }))[0]).toMatchObject({
      output: { found: false },
    });
  });

  it("refuse oversized values and namespaces that are not names", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const [big, badSpace] = await call(
      client,
      id,
      { name: "key_value_set", args: { key: "big", value: "x".repeat(70 * 1024) } },
      { name: "key_value_set", args: { key: "k", value: 1, namespace: "../other" } },
    );
    expect(big).toMatchObject({ ok: false, error: expect.stringContaining("over 64 KB") });
    expect(badSpace).toMatchObject({ ok: false, error: expect.stringContaining("namespace") });
  });
});

describe("librarian tools", () => {
  it("are offered by the default profile and store, read, query and search XML through a run", async () => {
    const client = new Api(app.url);
    const { id } = await client.createConversation();
    const thread =
      '<thread><message from="greeter" timestamp="2024-01-16T09:00:00Z">Welcome, error handling is on page 3</message></thread>';
    const [stored] = await call(client, id, {
      name: "librarian_store",
      args: { collection: "/db/agents/greeter", document_name: "conversation-001.xml", content: thread },
    });
    expect(stored).toMatchObject({
      ok: true,
      output: { path: "/db/agents/greeter/conversation-001.xml", created: true },
    });
    const [read, queried, searched] = await call(
      client,
      id,
      { name: "librarian_get", args: { path: "/db/agents/greeter/conversation-001.xml" } },
      {
        name: "librarian_query",
        args: {
          query: "for $m in //message where $m/@timestamp > $since return $m/@from/string()",
          variables: { since: "2024-01-15T00:00:00Z" },
        },
      },
      { name: "librarian_search", args: { query: "error handling", collection: "/db/agents" } },
    );
    expect(read).toMatchObject({ ok: true, output: { content: thread } });
    expect(queried).toMatchObject({ ok: true, output: { results: ["greeter"], documents_read: 1 } });
    expect(searched).toMatchObject({
      ok: true,
      output: {
        results: [
          {
            path: "/db/agents/greeter/conversation-001.xml",
            snippet: expect.stringContaining("**error** **handling**"),
          },
        ],
      },
    });
    // another person sees none of it
    const stranger = new Api(app.url);
    const theirs = await stranger.createConversation();
    expect(
      (await call(stranger, theirs.id, { name: "librarian_search", args: { query: "error handling" } }))[0],
    ).toMatchObject({ output: { results: [] } });
  });
});
