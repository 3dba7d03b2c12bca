import { describe, expect, it, vi } from "vitest";

const answered = vi.hoisted(() => ({ api: [] as unknown[], seat: [] as unknown[] }));
const loaded = vi.hoisted(() => [] as string[]);
vi.mock(
  "@/app/api/tools/[id]/execute/route",
  () => (
    loaded.push("api"),
    {
      POST: async (_request: Request, { params }: { params: Promise<{ id: string }> }) =>
        Response.json(answered.api.push(await params)),
    }
  ),
);
vi.mock(
  "@/app/seat/tools/[id]/execute/route",
  () => (
    loaded.push("seat"),
    {
      POST: async (_request: Request, { params }: { params: Promise<{ id: string }> }) =>
        Response.json(answered.seat.push(await params)),
    }
  ),
);
const { directRoute, loadDirectRoutes } = await import("@/instrumentation-node");

describe("the routes server.mjs serves without Next's router", () => {
  it("load their handlers at their first call, or all at once when the server preloads its routes", async () => {
    expect(loaded).toEqual([]);
    directRoute("POST", "/api/tools/abc/execute");
    expect(loaded).toEqual([]);
    await loadDirectRoutes();
    expect(loaded.sort()).toEqual(["api", "seat"]);
  });

  it("are a tool call through the API and through SEAT, with the tool's id decoded as Next decodes it", async () => {
    const request = new Request("http://localhost/");
    await directRoute("POST", "/api/tools/t%C3%A9st/execute?version=2")!(request);
    await directRoute("POST", "/api/tools/abc/execute")!(request);
    await directRoute("POST", "/seat/tools/abc/execute")!(request);
    expect(answered).toEqual({ api: [{ id: "tést" }, { id: "abc" }], seat: [{ id: "abc" }] });
  });

  it.each([
    ["GET", "/api/tools/abc/execute"],
    ["POST", "/api/tools/abc/execute/"],
    ["POST", "/api/tools/abc/execute/more"],
    ["POST", "/api/tools/abc/executes"],
    ["POST", "/api/tools/a?b/execute"],
    ["POST", "/api/tools//execute"],
    ["POST", "//api/tools/abc/execute"],
    ["POST", "/api/tools/abc"],
    ["POST", "/seat/tools/abc/execute#x"],
  ])("leave %s %s to Next", (method, url) => expect(directRoute(method, url)).toBeUndefined());
});
