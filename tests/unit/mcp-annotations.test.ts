import { describe, expect, it } from "vitest";
import { callsFetch, toolAnnotations } from "@/lib/mcp/annotations";

describe("MCP tool annotations from a tool's code", () => {
  it.each([
    ["a call", "async function run({ url }) { return (await fetch(url)).status; }"],
    ["fetch as a value", "const get = fetch; async function run({ url }) { return (await get(url)).ok; }"],
    ["fetch passed along", "function run({ urls }) { return Promise.all(urls.map(fetch)); }"],
    ["through this", "async function run({ url }) { return (await this.fetch(url)).ok; }"],
    ["a computed name", 'async function run({ url }) { return (await this["fetch"](url)).ok; }'],
    ["a shorthand property", "function run() { const api = { fetch }; return typeof api.fetch; }"],
  ])("counts %s as reaching the open web", (_case, code) => {
    expect(callsFetch(code)).toBe(true);
    expect(toolAnnotations({ language: "javascript", code })).toEqual({ readOnlyHint: true, openWorldHint: true });
  });

  it.each([
    ["no mention", "function run({ a, b }) { return a + b; }"],
    ["a comment", "// fetch nothing: pure arithmetic\nfunction run({ a }) { return a * 2; }"],
    ["a string", 'function run() { return "fetch"; }'],
    ["a parameter of that name, unused", "function run({ fetch }) { return 1; }"],
    ["code that does not parse", "function run( { return fetch(1) }"],
  ])("does not count %s", (_case, code) => {
    expect(callsFetch(code)).toBe(false);
    expect(toolAnnotations({ language: "javascript", code })).toEqual({ readOnlyHint: true, openWorldHint: false });
  });

  it("counts a Python tool as open-world when it uses requests or urllib, or names a URL; else not", () => {
    const closed = 'def run(inputs):\n    fetch = inputs["url"]\n    return fetch';
    expect(toolAnnotations({ language: "python", code: closed })).toEqual({ readOnlyHint: true, openWorldHint: false });
    for (const code of [
      'import requests\ndef run(inputs):\n    return requests.get(inputs["url"]).text',
      "from urllib.request import urlopen\ndef run(inputs):\n    return urlopen(inputs['url']).read().decode()",
      "import pandas as pd\ndef run(inputs):\n    return len(pd.read_csv('https://example.com/a.csv'))",
    ])
      expect(toolAnnotations({ language: "python", code })).toEqual({ readOnlyHint: true, openWorldHint: true });
  });
});
