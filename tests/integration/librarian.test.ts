// The librarian tools against a real, migrated database (SQLite's FTS5 or PostgreSQL's text search), called as the
// agent calls them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolSettings } from "@/lib/settings/profiles";
import type { AgentTool, ToolResult } from "@/lib/tools/types";
import { freshDatabaseUrl, prepareDatabase } from "../support/database";

process.env.DATABASE_URL = freshDatabaseUrl();
process.env.TOOLSMITH_LIBRARIAN_QUERY_DOCUMENTS = "50";

let tools: typeof import("@/lib/tools/native/librarian");
beforeAll(async () => {
  await prepareDatabase(process.env.DATABASE_URL!);
  tools = await import("@/lib/tools/native/librarian");
});
afterAll(async () => {
  await (await import("@/lib/librarian/xml-engine")).xmlEngine.close();
  await (await import("@/lib/db/driver/client")).db.$disconnect();
});

/** Call a tool as the toolset does: the model's arguments checked against its schema, then run. */
async function call(
  tool: AgentTool,
  args: unknown,
  ownerId = "alice",
  settings: ToolSettings = {},
): Promise<ToolResult> {
  const parsed = tool.parse(args);
  if (!parsed.ok) return { ok: false, error: parsed.problems.join("; ") };
  return tool.execute(parsed.input, {
    ownerId,
    conversationId: "c1",
    runId: "r1",
    signal: new AbortController().signal,
    tools: { get: () => undefined, add: () => {} },
    settings,
  });
}
const store = (collection: string, name: string, content: string, ownerId = "alice", settings?: ToolSettings) =>
  call(tools.librarianStore, { collection, document_name: name, content }, ownerId, settings);

describe("librarian tools", () => {
  it("store a document, give back its path, and read it by that path", async () => {
    const content = '<thread><message from="greeter">Hello</message></thread>';
    expect(await store("/db/agents/greeter", "conversation-001.xml", content)).toEqual({
      ok: true,
      output: { path: "/db/agents/greeter/conversation-001.xml", created: true, bytes: content.length },
    });
    const read = await call(tools.librarianGet, { path: "/db/agents/greeter/conversation-001.xml" });
    expect(read).toMatchObject({ ok: true, output: { content } });

    // same name: replaced, and search sees the new text only
    expect(
      await store("/db/agents/greeter", "conversation-001.xml", "<thread><message>Goodbye</message></thread>"),
    ).toMatchObject({ output: { created: false } });
    expect(await call(tools.librarianSearch, { query: "hello" })).toEqual({ ok: true, output: { results: [] } });
    expect(await call(tools.librarianSearch, { query: "goodbye" })).toMatchObject({
      output: { results: [{ path: "/db/agents/greeter/conversation-001.xml" }] },
    });
  });

  it("refuse XML that is not well-formed, documents over the size limit and names that are not plain", async () => {
    expect(await store("/db/x", "bad.xml", "<a><b></a>")).toMatchObject({
      ok: false,
      error: expect.stringContaining('expected "b"'),
    });
    expect(await store("/db/x", "dtd.xml", '<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>')).toMatchObject({
      ok: false,
      error: expect.stringContaining("DOCTYPE"),
    });
    expect(await store("/db/x", "big.xml", `<a>${"x".repeat(1024 * 1024)}</a>`)).toMatchObject({
      ok: false,
      error: expect.stringContaining("keeps documents up to"),
    });
    expect(await store("/db/../etc", "x.xml", "<a/>")).toMatchObject({
      ok: false,
      error: expect.stringContaining("collection"),
    });
    expect(await store("/db/x", "../x.xml", "<a/>")).toMatchObject({
      ok: false,
      error: expect.stringContaining("document name"),
    });
    expect(await call(tools.librarianGet, { path: "/db/x/bad.xml" })).toEqual({
      ok: false,
      error: "There is no document /db/x/bad.xml.",
    });
  });

  it("query a collection and those under it with XQuery and external variables, and nothing outside it", async () => {
    await store(
      "/db/log",
      "a.xml",
      '<log><entry level="error" at="2024-01-16">disk full</entry><entry level="info" at="2024-01-10">started</entry></log>',
    );
    await store("/db/log/old", "b.xml", '<log><entry level="error" at="2023-05-01">cable unplugged</entry></log>');
    await store("/db/logbook", "c.xml", '<log><entry level="error" at="2024-02-01">not in /db/log</entry></log>');
    const errors = await call(tools.librarianQuery, {
      query: 'for $e in //entry[@level = "error"] where $e/@at > $since return string($e)',
      collection: "/db/log",
      variables: { since: "2024-01-01" },
    });
    expect(errors).toEqual({ ok: true, output: { results: ["disk full"], truncated: false, documents_read: 2 } });
    expect(
      await call(tools.librarianQuery, { query: "count(collection()//entry)", collection: "/db/log" }),
    ).toMatchObject({ output: { results: ["3"] } });
    expect(await call(tools.librarianQuery, { query: "//entry[", collection: "/db/log" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("XPST0003"),
    });
    expect(await call(tools.librarianQuery, { query: "$x", variables: { "bad name": 1 } })).toMatchObject({
      ok: false,
      error: expect.stringContaining("variable names"),
    });
  });

  it("treat _ in a collection as a letter, not a wildcard", async () => {
    await store("/db/a_b", "one.xml", "<n>underscore</n>");
    await store("/db/aXb", "two.xml", "<n>other</n>");
    expect(await call(tools.librarianQuery, { query: "string(/n)", collection: "/db/a_b" })).toMatchObject({
      output: { results: ["underscore"] },
    });
    expect(await call(tools.librarianSearch, { query: "other", collection: "/db/a_b" })).toMatchObject({
      output: { results: [] },
    });
  });

  it("search the text with scores and snippets, best first, stemmed, with phrases and FTS syntax taken literally", async () => {
    await store(
      "/db/agents/notes",
      "errors.xml",
      "<note><title>Error handling</title><p>Handle every error: errors are data. Log the error, then retry.</p></note>",
    );
    await store(
      "/db/agents/notes",
      "intro.xml",
      "<note><title>Introduction</title><p>An error may happen once in a while.</p></note>",
    );
    await store("/db/other", "handling.xml", "<note>error handling, elsewhere</note>");
    const found = await call(tools.librarianSearch, { query: "error handling", collection: "/db/agents" });
    const results = (found as { output: { results: { path: string; score: number; snippet: string }[] } }).output
      .results;
    expect(results.map((result) => result.path)).toEqual(["/db/agents/notes/errors.xml"]);
    expect(results[0].snippet).toContain("**Error** **handling**");
    expect(results[0].score).toBeGreaterThan(0);

    const ranked = (await call(tools.librarianSearch, { query: "error", collection: "/db/agents/notes" })) as {
      output: { results: { path: string; score: number }[] };
    };
    expect(ranked.output.results.map((result) => result.path)).toEqual([
      "/db/agents/notes/errors.xml",
      "/db/agents/notes/intro.xml",
    ]);
    expect(ranked.output.results[0].score).toBeGreaterThan(ranked.output.results[1].score);

    expect(await call(tools.librarianSearch, { query: '"handling, elsewhere"' })).toMatchObject({
      output: { results: [{ path: "/db/other/handling.xml" }] },
    });
    for (const hostile of ['error OR "', "NEAR(error handling)", "error AND -handling", '") OR 1=1 --']) {
      expect(await call(tools.librarianSearch, { query: hostile }), hostile).toMatchObject({ ok: true });
    }
    // As FTS5 syntax this is "prefix error* in the column text" and would find the notes; as words, "text" is in none.
    expect(await call(tools.librarianSearch, { query: "text:error*" })).toEqual({ ok: true, output: { results: [] } });
    expect(await call(tools.librarianSearch, { query: "error", num_results: 1 })).toMatchObject({
      output: { results: [expect.anything()] },
    });
    expect(await call(tools.librarianSearch, { query: "?!" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("at least one word"),
    });
  });

  it("keep each person's documents their own", async () => {
    await store("/db/private", "diary.xml", "<diary>secret plans</diary>");
    expect(await call(tools.librarianGet, { path: "/db/private/diary.xml" }, "bob")).toMatchObject({ ok: false });
    expect(await call(tools.librarianSearch, { query: "secret" }, "bob")).toEqual({
      ok: true,
      output: { results: [] },
    });
    expect(await call(tools.librarianQuery, { query: "count(collection())" }, "bob")).toMatchObject({
      output: { results: ["0"], documents_read: 0 },
    });
    // bob's document of the same path is another document
    await store("/db/private", "diary.xml", "<diary>bob's</diary>", "bob");
    expect(await call(tools.librarianGet, { path: "/db/private/diary.xml" })).toMatchObject({
      output: { content: "<diary>secret plans</diary>" },
    });
  });

  it("keep a profile's librarian to the collections it allows", async () => {
    const settings = { allowed_paths: ["/db/agents"] };
    expect(await store("/db/agents/x", "ok.xml", "<a/>", "alice", settings)).toMatchObject({ ok: true });
    expect(await store("/db/agentsX", "no.xml", "<a/>", "alice", settings)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not in the collections"),
    });
    expect(await call(tools.librarianGet, { path: "/db/private/diary.xml" }, "alice", settings)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not in the collections"),
    });
    expect(await call(tools.librarianQuery, { query: "1" }, "alice", settings)).toMatchObject({
      ok: false,
      error: expect.stringContaining("name one of them"),
    });
    expect(
      await call(tools.librarianSearch, { query: "secret", collection: "/db/private" }, "alice", settings),
    ).toMatchObject({ ok: false });
  });

  it("ask for a smaller collection when a query would read too many documents", async () => {
    for (let index = 0; index < 51; index++) await store("/db/many", `d${index}.xml`, `<d>${index}</d>`, "carol");
    expect(
      await call(tools.librarianQuery, { query: "count(collection())", collection: "/db/many" }, "carol"),
    ).toMatchObject({ ok: false, error: expect.stringContaining("more than 50 documents") });
  });
});
