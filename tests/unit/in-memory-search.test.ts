import { describe, expect, it } from "vitest";
import { rankInMemory as rankWithScores, type InMemoryTool } from "@/lib/retrieval/in-memory";

const tool = (name: string, description: string, properties: Record<string, object> = {}): InMemoryTool => ({
  name,
  description,
  inputSchema: { type: "object", properties },
});

const rankInMemory = (tools: InMemoryTool[], query: string, k: number) =>
  rankWithScores(tools, query, k).map(({ tool }) => tool);

const TOOLS = [
  tool("github__create_issue", "Create a new issue in a GitHub repository.", { title: { type: "string" } }),
  tool("github__list_pull_requests", "List the pull requests of a repository.", { state: { enum: ["open"] } }),
  tool("files__read_text_file", "Read a text file from the allowed directories.", { path: { type: "string" } }),
  tool("weather__forecast", "The weather forecast for a city, by day.", { city: { description: "A city name" } }),
  ...Array.from({ length: 200 }, (_, index) => tool(`filler__noise_${index}`, `Unrelated helper number ${index}.`)),
];

describe("ranking tools held in memory (an MCP server's)", () => {
  it("finds a tool by the words of its name, description and parameters, best first", () => {
    expect(rankInMemory(TOOLS, "open an issue on GitHub", 2).map((found) => found.name)[0]).toBe(
      "github__create_issue",
    );
    expect(rankInMemory(TOOLS, "what's the weather in Paris tomorrow?", 1)).toEqual([TOOLS[3]]);
    expect(rankInMemory(TOOLS, "read the file notes.txt", 1)).toEqual([TOOLS[2]]);
    // A parameter's description counts: "city" is only in the forecast's parameters and description.
    expect(rankInMemory(TOOLS, "city", 3).map((found) => found.name)).toEqual(["weather__forecast"]);
  });

  it("matches a prefix and a small misspelling", () => {
    expect(rankInMemory(TOOLS, "forecasts", 1)).toEqual([TOOLS[3]]);
    expect(rankInMemory(TOOLS, "repositry pull", 1)).toEqual([TOOLS[1]]);
  });

  it("scores best first", () => {
    const scores = rankWithScores(TOOLS, "pull requests of a repository", 3).map(({ score }) => score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores[0]).toBeGreaterThan(0);
  });

  it("gives at most k, and nothing for a query without a descriptive word or for k 0", () => {
    expect(rankInMemory(TOOLS, "unrelated helper", 5)).toHaveLength(5);
    expect(rankInMemory(TOOLS, "the of and 42", 5)).toEqual([]);
    expect(rankInMemory(TOOLS, "weather", 0)).toEqual([]);
  });
});
