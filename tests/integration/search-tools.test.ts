import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer, wordHashEmbedding, type ChatRequest } from "../support/model-server";

/*
 * Retrieval of library tools in chat and through the REST API: a run is offered the library tools that fit the
 * person's message, search_tools finds the others, and GET /api/tools/search ranks the same way.
 */

const model = new ModelServer();
let app: AppServer;

const tool = (name: string, description: string, properties: Record<string, string>, body: string) => ({
  name,
  description,
  parameters_schema: {
    type: "object",
    properties: Object.fromEntries(Object.entries(properties).map(([key, type]) => [key, { type }])),
    required: Object.keys(properties),
  },
  code: `function run(input) { ${body} }`,
});

const LIBRARY = [
  tool(
    "fahrenheit_to_celsius",
    "Convert a temperature from degrees Fahrenheit to degrees Celsius.",
    { fahrenheit: "number" },
    "return Math.round((input.fahrenheit - 32) * 5 / 9 * 100) / 100;",
  ),
  tool(
    "celsius_to_fahrenheit",
    "Convert a temperature from degrees Celsius to degrees Fahrenheit.",
    { celsius: "number" },
    "return input.celsius * 9 / 5 + 32;",
  ),
  tool("slugify", "Turn a title into a URL slug.", { title: "string" }, "return input.title.toLowerCase();"),
  tool("count_words", "Count the words in a text.", { text: "string" }, "return input.text.split(/\\s+/).length;"),
  tool(
    "reverse_text",
    "Reverse the characters of a text.",
    { text: "string" },
    "return [...input.text].reverse().join('');",
  ),
  tool("shout_text", "Upper-case a text.", { text: "string" }, "return input.text.toUpperCase();"),
  tool("trim_text", "Remove spaces around a text.", { text: "string" }, "return input.text.trim();"),
  tool("text_length", "The number of characters of a text.", { text: "string" }, "return input.text.length;"),
  tool("initials", "The initials of a person's name in a text.", { text: "string" }, "return input.text[0];"),
  tool("add_days", "Add days to a calendar date.", { date: "string", days: "number" }, "return input.date;"),
  tool(
    "compound_interest",
    "Grow a principal at a yearly interest rate.",
    { principal: "number", rate: "number", years: "number" },
    "return input.principal;",
  ),
  tool("isValidIban", "Check an international bank account number's checksum.", { iban: "string" }, "return true;"),
];

const post = (client: Api, path: string, body: unknown) =>
  client.fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function libraryOf(client: Api): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const definition of LIBRARY) {
    const response = await post(client, "/api/tools", definition);
    expect(response.status, await response.clone().text()).toBe(201);
    ids.set(definition.name, (await response.json()).id);
  }
  return ids;
}

const offered = (request: ChatRequest) => request.tools!.map((offer) => offer.function.name);
const builtins = (names: string[]) => names.filter((name) => !LIBRARY.some((definition) => definition.name === name));

async function search(client: Api, q: string): Promise<{ name: string; score: number }[]> {
  const response = await client.fetch(`/api/tools/search?q=${encodeURIComponent(q)}`);
  expect(response.status).toBe(200);
  return (await response.json()).tools;
}

let alice: Api;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_RETRIEVED_TOOLS: "3" });
  await app.start();
  alice = new Api(app.url);
  await libraryOf(alice);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("the library in a run", () => {
  it("finds a library tool with search_tools and calls it instead of writing one", async () => {
    const ask = "The oven dial reads 451. What is that in the other scale?";
    model.script(ask, [
      { toolCalls: [{ name: "search_tools", args: { query: "convert fahrenheit to celsius" } }] },
      { toolCalls: [{ name: "fahrenheit_to_celsius", args: { fahrenheit: 451 } }] },
      { text: "About 232.78 °C." },
    ]);
    const conversation = await alice.createConversation();
    const events = await alice.run(conversation.id, ask);

    const [first, second] = model.requestsFor(ask);
    expect(offered(first)).toContain("search_tools");
    expect(offered(first)).not.toContain("fahrenheit_to_celsius");
    const [found, called] = ofType(events, "tool_result") as unknown as {
      name: string;
      ok: boolean;
      output: { tools: { name: string; score: number }[] };
    }[];
    expect(found.name).toBe("search_tools");
    expect(found.output.tools[0]).toMatchObject({
      name: "fahrenheit_to_celsius",
      signature: "fahrenheit_to_celsius(fahrenheit: number)",
      description: "Convert a temperature from degrees Fahrenheit to degrees Celsius.",
    });
    expect(found.output.tools[0].score).toBeGreaterThan(found.output.tools[1].score);
    // Found in step 1, offered with its schema in step 2, and called: nothing was written.
    expect(
      second.tools!.find((offer) => offer.function.name === "fahrenheit_to_celsius")?.function.parameters,
    ).toMatchObject(LIBRARY[0].parameters_schema);
    expect(called).toMatchObject({ name: "fahrenheit_to_celsius", ok: true, output: 232.78 });
    expect(ofType(events, "tool_registered")).toEqual([]);
    expect(ofType(events, "run_finished")[0]).toMatchObject({ status: "completed" });
  });

  it("offers the top k library tools for the person's message, not the whole library", async () => {
    const ask = "Reverse this text for me, then count its words: 'level up'";
    model.script(ask, [{ text: "pu level, 2 words." }]);
    const conversation = await alice.createConversation();
    await alice.run(conversation.id, ask);
    const names = offered(model.requestsFor(ask)[0]);
    const library = names.filter((name) => LIBRARY.some((definition) => definition.name === name));
    // TOOLSMITH_RETRIEVED_TOOLS is 3 here: six library tools are about text, three are offered, the best first.
    expect(library).toHaveLength(3);
    expect(library).toEqual(expect.arrayContaining(["reverse_text", "count_words"]));
    expect(builtins(names)).toEqual(expect.arrayContaining(["register_tool", "search_tools", "think"]));
  });

  it("keeps offering the conversation's own tools next to the top k, and finds library tools each turn anew", async () => {
    const conversation = await alice.createConversation();
    const make = "Make me a tool that doubles a number.";
    model.script(make, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: tool("double_it", "Double a number.", { value: "number" }, "return input.value * 2;"),
          },
        ],
      },
      { text: "Made double_it." },
    ]);
    await alice.run(conversation.id, make);
    const next = "How much is 1000 after 3 years at 5% interest?";
    model.script(next, [{ text: "1157.63" }]);
    await alice.run(conversation.id, next);
    const names = offered(model.requestsFor(next)[0]);
    expect(names).toContain("double_it");
    expect(names).toContain("compound_interest");
    expect(names).not.toContain("slugify");
  });

  it("calls a library tool by name in a later turn, offered or not", async () => {
    const conversation = await alice.createConversation();
    // The message fits three text tools, which fill the offer (TOOLSMITH_RETRIEVED_TOOLS is 3): IBAN's is not among them.
    const ask = "Is the text DE89 3704 0044 0532 0130 00 all right? Same as before.";
    model.script(ask, [
      { toolCalls: [{ name: "isValidIban", args: { iban: "DE89370400440532013000" } }] },
      { text: "Valid." },
    ]);
    const events = await alice.run(conversation.id, ask);
    expect(offered(model.requestsFor(ask)[0])).not.toContain("isValidIban");
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "isValidIban", ok: true, output: true });
  });
});

describe("a small library in a run", () => {
  // Carol's library: three tools, none sharing a word with "convert 300 K".
  const carolsLibrary = [
    tool(
      "kelvin",
      "Degrees Celsius from a temperature in kelvins.",
      { kelvins: "number" },
      "return Math.round((input.kelvins - 273.15) * 100) / 100;",
    ),
    tool("word_count", "Count the words in a text.", { text: "string" }, "return input.text.split(/\\s+/).length;"),
    tool("add_days", "Add days to a calendar date.", { date: "string", days: "number" }, "return input.date;"),
  ];
  const carol = () => new Api(app.url);
  let client: Api;
  const ids = new Map<string, string>();
  const libraryOffered = (request: ChatRequest) =>
    offered(request).filter(
      (name) => carolsLibrary.some((definition) => definition.name === name) || name === "reverse_text",
    );

  beforeAll(async () => {
    client = carol();
    for (const definition of carolsLibrary) {
      const response = await post(client, "/api/tools", definition);
      expect(response.status, await response.clone().text()).toBe(201);
      ids.set(definition.name, (await response.json()).id);
    }
  });

  it("offers the library's tools when the message shares no word with them", async () => {
    const ask = "convert 300 K";
    model.script(ask, [{ toolCalls: [{ name: "kelvin", args: { kelvins: 300 } }] }, { text: "26.85 °C." }]);
    const conversation = await client.createConversation();
    const events = await client.run(conversation.id, ask);
    expect(libraryOffered(model.requestsFor(ask)[0]).sort()).toEqual(["add_days", "kelvin", "word_count"]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({ name: "kelvin", ok: true, output: 26.85 });
  });

  it("fills the slots the matches leave with the most recently used tools, once each, up to the setting", async () => {
    const created = await post(
      client,
      "/api/tools",
      tool("reverse_text", "Reverse the characters of a text.", { text: "string" }, "return input.text;"),
    );
    expect(created.status).toBe(201);
    // Used, newest last: kelvin (called in the run above), reverse_text (saved), add_days, word_count (called).
    for (const [name, input] of [
      ["add_days", { date: "2026-01-01", days: 1 }],
      ["word_count", { text: "a b" }],
    ] as const) {
      const called = await post(client, `/api/tools/${ids.get(name)}/execute`, { input });
      expect(((await called.json()) as { ok: boolean }).ok, name).toBe(true);
    }
    const ask = "Count the words: 'a b c'";
    model.script(ask, [{ text: "3 words." }]);
    const conversation = await client.createConversation();
    await client.run(conversation.id, ask);
    // The match first, then the two most recently used others (word_count, the most recent, is not offered twice);
    // kelvin, used longest ago, is left out: three in all (TOOLSMITH_RETRIEVED_TOOLS).
    expect(libraryOffered(model.requestsFor(ask)[0])).toEqual(["word_count", "add_days", "reverse_text"]);
  });

  it("offers none of another identity's tools", async () => {
    const stranger = carol();
    const ask = "convert 300 K, please";
    model.script(ask, [{ text: "Which scale?" }]);
    const conversation = await stranger.createConversation();
    await stranger.run(conversation.id, ask);
    expect(libraryOffered(model.requestsFor(ask)[0])).toEqual([]);
  });
});

describe("GET /api/tools/search", () => {
  it("ranks by words, stemmed, over name, parameter names and description; a piece of text still finds", async () => {
    // Two words that are nowhere side by side: each is matched, the tools with both first.
    const both = await search(alice, "fahrenheit temperature");
    expect(
      both
        .slice(0, 2)
        .map((hit) => hit.name)
        .sort(),
    ).toEqual(["celsius_to_fahrenheit", "fahrenheit_to_celsius"]);
    expect(both.map((hit) => hit.score)).toEqual([...both.map((hit) => hit.score)].sort((a, b) => b - a));
    expect(both[0].score).toBeLessThanOrEqual(1);
    // Stemming: "converting temperatures" finds "Convert a temperature".
    expect((await search(alice, "converting temperatures")).map((hit) => hit.name)).toContain("fahrenheit_to_celsius");
    // A parameter's name counts, and camelCase names are split into words.
    expect((await search(alice, "principal")).map((hit) => hit.name)).toEqual(["compound_interest"]);
    expect((await search(alice, "valid iban")).map((hit) => hit.name)[0]).toBe("isValidIban");
    // SEAT's form: a piece of a word, in the name or description, found with a score of 0.
    expect(await search(alice, "ahrenhei")).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "celsius_to_fahrenheit", score: 0 })]),
    );
    expect(await search(alice, "no such thing anywhere")).toEqual([]);
  });

  it("reads any text as words, never as the search engine's syntax", async () => {
    for (const q of ["x² ½ ß Ω 中文 ٣ 💥", '" OR * NEAR( ^col: -', "a & b | !c <-> d:*", '\'; DROP TABLE "Tool"; --']) {
      const response = await alice.fetch(`/api/tools/search?q=${encodeURIComponent(q)}`);
      expect(response.status, q).toBe(200);
    }
    expect((await search(alice, "celsius AND NOT fahrenheit*")).map((hit) => hit.name)).toContain(
      "celsius_to_fahrenheit",
    );
  });

  it("searches the requester's tools only", async () => {
    const bob = new Api(app.url);
    expect(await search(bob, "fahrenheit")).toEqual([]);
  });
});

describe("with an embedding model", () => {
  let hybrid: AppServer;
  let owner: Api;
  // A model of meaning in miniature: words of one concept share a dimension, so "warmth" is near "temperature".
  const concepts = [
    ["temperature", "warmth", "hot", "heat", "celsius", "fahrenheit", "degree"],
    ["text", "word", "character", "letter"],
  ];
  const embed = (text: string) => {
    const vector = wordHashEmbedding(text);
    for (const words of concepts) vector.push(4 * words.filter((word) => text.toLowerCase().includes(word)).length);
    return vector;
  };

  beforeAll(async () => {
    model.embed = embed;
    hybrid = scriptedApp(model.url, { TOOLSMITH_EMBEDDING_MODEL: "scripted-embedder" });
    await hybrid.start();
    owner = new Api(hybrid.url);
    await libraryOf(owner);
  });
  afterAll(async () => {
    await hybrid?.stop();
    model.embed = wordHashEmbedding;
  });

  it("ranks by meaning as well as by words, embedding each tool once", async () => {
    // No word in common with any tool: full text alone finds nothing.
    expect(await search(alice, "how much warmth")).toEqual([]);
    const before = model.embeddingRequests.length;
    const found = await search(owner, "how much warmth");
    expect(
      found
        .slice(0, 2)
        .map((hit) => hit.name)
        .sort(),
    ).toEqual(["celsius_to_fahrenheit", "fahrenheit_to_celsius"]);
    const embedded = model.embeddingRequests.slice(before);
    expect(embedded.every((request) => request.model === "scripted-embedder")).toBe(true);
    expect(embedded.flatMap((request) => request.input)).toHaveLength(LIBRARY.length + 1);

    // The tools' vectors are stored: the next search embeds its query only.
    const again = model.embeddingRequests.length;
    await search(owner, "heat of a letter");
    expect(model.embeddingRequests.slice(again).flatMap((request) => request.input)).toEqual(["heat of a letter"]);
  });

  it("embeds a tool again when its description changes", async () => {
    const [hit] = await search(owner, "slugify");
    const tools = (await (await owner.fetch("/api/tools?q=slugify")).json()).tools as { id: string }[];
    const patched = await owner.fetch(`/api/tools/${tools[0].id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ description: "Turn a heading's text into a URL slug." }),
    });
    expect(patched.status).toBe(200);
    expect(hit.name).toBe("slugify");
    const before = model.embeddingRequests.length;
    await search(owner, "slug");
    expect(
      model.embeddingRequests
        .slice(before)
        .flatMap((request) => request.input)
        .sort(),
    ).toEqual(["slug", "slugify: Turn a heading's text into a URL slug. (title)"]);
  });

  it("goes on by words when the embedding server fails", async () => {
    model.embed = () => {
      throw new Error("embedding server down");
    };
    const before = model.embeddingRequests.length;
    try {
      const found = await search(owner, "fahrenheit");
      // The embedding server was asked and failed; the answer is the ranking by words.
      expect(model.embeddingRequests.length).toBeGreaterThan(before);
      expect(
        found
          .slice(0, 2)
          .map((hit) => hit.name)
          .sort(),
      ).toEqual(["celsius_to_fahrenheit", "fahrenheit_to_celsius"]);
      expect(found[0].score).toBe(1);
    } finally {
      model.embed = embed;
    }
  });
});
