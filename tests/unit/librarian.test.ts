import { getEventListeners } from "node:events";
import { afterAll, describe, expect, it } from "vitest";
import { collectionPath, collectionRefusal, documentName, documentPath } from "@/lib/librarian/paths";
import { XmlEngine, XmlError, type QueryDocument } from "@/lib/librarian/xml-engine";

const engine = new XmlEngine({ timeoutMs: 1_500, memoryMb: 64 });
afterAll(() => engine.close());

const greeter: QueryDocument = {
  key: "1:1",
  path: "/db/agents/greeter/conversation-001.xml",
  content:
    '<thread><message from="greeter" timestamp="2024-01-16T09:00:00Z">Hello <b>there</b></message>' +
    '<message from="user" timestamp="2024-01-14T09:00:00Z">Hi</message></thread>',
};
const other: QueryDocument = {
  key: "2:1",
  path: "/db/agents/greeter/conversation-002.xml",
  content: '<thread><message from="greeter" timestamp="2024-01-20T09:00:00Z">Bye</message></thread>',
};
const run = (query: string, variables: Record<string, unknown> = {}, documents = [greeter, other], maxResults = 100) =>
  engine.query({ query, variables, documents, maxResults, outputChars: 10_000 });

describe("librarian XML engine", () => {
  it("checks a document and gives its text, one space between text nodes", async () => {
    expect(await engine.check("<a><b>error</b><c>handling</c>\n  <![CDATA[raw <text>]]></a>")).toBe(
      "error handling raw <text>",
    );
  });

  it.each([
    ["<a><b></a>", /found end tag "a" but expected "b"[\s\S]*line 1/],
    ["not xml", /./],
    ["<a/><b/>", /./],
    [
      '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;</x>',
      /DOCTYPE declarations/,
    ],
    ['<!DOCTYPE x SYSTEM "file:///etc/passwd"><x/>', /DOCTYPE declarations/],
    ["<a>&undefined;</a>", /./],
  ])("refuses %s with the reason", async (content, reason) => {
    await expect(engine.check(content)).rejects.toThrow(XmlError);
    await expect(engine.check(content)).rejects.toThrow(reason);
  });

  it("runs a path against each document and concatenates the results", async () => {
    const answer = await run('//message[@from="greeter"]');
    expect(answer).toEqual({
      results: [
        '<message from="greeter" timestamp="2024-01-16T09:00:00Z">Hello <b>there</b></message>',
        '<message from="greeter" timestamp="2024-01-20T09:00:00Z">Bye</message>',
      ],
      truncated: false,
      documentsRead: 2,
    });
  });

  it("binds external variables, as in the document's example", async () => {
    const answer = await run("for $m in //message where $m/@timestamp > $since return string($m)", {
      since: "2024-01-15T00:00:00Z",
    });
    expect(answer.results).toEqual(["Hello there", "Bye"]);
    expect(
      (await run("declare variable $who external; count(collection()//message[@from = $who])", { who: "user" }))
        .results,
    ).toEqual(["1"]);
  });

  it("runs a query naming collection() or doc() once, over the documents in scope", async () => {
    expect((await run("count(collection()//message)")).results).toEqual(["3"]);
    expect((await run(`doc("${other.path}")//message/string()`)).results).toEqual(["Bye"]);
    expect((await run('doc("/db/elsewhere/x.xml")')).results).toEqual([]);
    // a string mentioning collection() is not a call
    expect((await run('"collection()"')).results).toEqual(["collection()", "collection()"]);
  });

  it("serializes attributes, atomics, maps and arrays", async () => {
    const answer = await run('(//message/@from)[1], 1 + 1, true(), map { "n": 1 }, [1, "two"]', {}, [greeter]);
    expect(answer.results).toEqual(['from="greeter"', "2", "true", '{"n":1}', '[1,"two"]']);
  });

  it("reports the query's own error (syntax, unknown variable, no context for collection-wide queries)", async () => {
    await expect(run("//message[")).rejects.toThrow(/XPST0003/);
    await expect(run("$nope")).rejects.toThrow(/XPST0008/);
    await expect(run("count(collection()) + count(//x)")).rejects.toThrow(/XPDY0002/);
  });

  it("caps the results", async () => {
    const answer = await run("1 to 500", {}, [greeter], 10);
    expect(answer).toMatchObject({ truncated: true });
    expect(answer.results).toHaveLength(10);
  });

  it("stops a query past its wall clock, and the next query gets a fresh thread", async () => {
    // Memory enough that only the clock can stop it: the range's items are garbage, but how fast the collector
    // keeps up with them varies, and 64 MB was sometimes reached first.
    const roomy = new XmlEngine({ timeoutMs: 1_500, memoryMb: 512 });
    try {
      const query = (text: string) =>
        roomy.query({ query: text, variables: {}, documents: [greeter], maxResults: 100, outputChars: 10_000 });
      const started = performance.now();
      await expect(query("count(for $i in 1 to 100000000000 return $i)")).rejects.toThrow(/longer than 1500 ms/);
      expect(performance.now() - started).toBeLessThan(2_500);
      expect((await query("1 + 1")).results).toEqual(["2"]);
    } finally {
      roomy.close();
    }
  });

  it("stops a query when its run is cancelled, and lets go of the run's signal", async () => {
    const controller = new AbortController();
    const pending = engine.query(
      {
        query: "count(for $i in 1 to 100000000000 return $i)",
        variables: {},
        documents: [greeter],
        maxResults: 10,
        outputChars: 1000,
      },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 100);
    await expect(pending).rejects.toThrow(/cancelled/);
    const signal = new AbortController().signal;
    for (let i = 0; i < 20; i++)
      await engine.query(
        { query: "1", variables: {}, documents: [greeter], maxResults: 10, outputChars: 1000 },
        signal,
      );
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  it("stops a query that needs more memory than its thread has", async () => {
    const roomy = new XmlEngine({ timeoutMs: 20_000, memoryMb: 64 });
    const query = (text: string) =>
      roomy.query({ query: text, variables: {}, documents: [greeter], maxResults: 10, outputChars: 1000 });
    await expect(
      query('count(for $i in 1 to 100000000 return array { $i, "some text to fill the heap" })'),
    ).rejects.toThrow("The query needed more than 64 MB and was stopped.");
    expect((await query("1")).results).toEqual(["1"]);
    await roomy.close();
  });
});

describe("librarian names", () => {
  it.each(["/db", "/db/agents/greeter", "/db/a_b/c-d/e.f", "/db/agents/"])("accepts the collection %s", (value) => {
    expect(collectionPath.safeParse(value).success).toBe(true);
  });
  it.each([
    "",
    "/",
    "db",
    "/db/../x",
    "/db/./x",
    "/db//x",
    "/db/.hidden",
    "/db/a b",
    "/db/a%2e",
    "/db/\u0000",
    `/${"a/".repeat(17)}b`,
  ])("refuses the collection %j", (value) => {
    expect(collectionPath.safeParse(value).success).toBe(false);
  });
  it("splits a document path into its collection and name", () => {
    expect(documentPath.parse("/db/agents/greeter/conversation-001.xml")).toEqual({
      collection: "/db/agents/greeter",
      name: "conversation-001.xml",
    });
    for (const bad of ["/x.xml", "conversation.xml", "/db/agents/", "/db/../x.xml", "/db/agents/..", "/db/agents/.x"])
      expect(documentPath.safeParse(bad).success, bad).toBe(false);
    expect(documentName.safeParse("..").success).toBe(false);
  });
  it("keeps a profile's librarian to its collections", () => {
    expect(collectionRefusal("/db/anything", undefined)).toBeUndefined();
    expect(collectionRefusal(null, undefined)).toBeUndefined();
    expect(collectionRefusal("/db/agents/greeter", ["/db/agents"])).toBeUndefined();
    expect(collectionRefusal("/db/agents", ["/db/agents/"])).toBeUndefined();
    expect(collectionRefusal("/db/agentsX", ["/db/agents"])).toMatch(/not in the collections/);
    expect(collectionRefusal(null, ["/db/agents"])).toMatch(/name one of them/);
  });
});
