// Adding an MCP server connects to it and lists its tools, and Refresh connects again, through the built app:
// server-everything over loopback HTTP (TOOLSMITH_MCP_PRIVATE_HOSTS allows 127.0.0.1), the app's own /api/mcp with a
// token it refuses, a closed port, and a server that accepts connections and never answers.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, sendJson } from "../support/api";
import { freePort, scriptedApp, type AppServer } from "../support/app-server";
import { startEverythingHttp } from "../support/mcp-servers";

/** Short, so that a server that never answers fails within the test. */
const CONNECT_TIMEOUT_MS = 2_000;

let everything: Awaited<ReturnType<typeof startEverythingHttp>>;
let app: AppServer;
let alice: Api;
let bob: Api;

beforeAll(async () => {
  everything = await startEverythingHttp();
  app = scriptedApp("http://127.0.0.1:9/v1", {
    TOOLSMITH_MCP_PRIVATE_HOSTS: "127.0.0.1",
    TOOLSMITH_MCP_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  });
  await app.start();
  alice = new Api(app.url);
  bob = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await everything?.stop();
});

interface Server {
  id: string;
  name: string;
  status?: { state: string; message?: string };
  tools?: { name: string; description?: string }[];
}

const add = async (who: Api, body: unknown): Promise<Server> =>
  expectJson(await sendJson(who, "/api/mcp-servers", "POST", body), 201);
const refresh = async (who: Api, id: string, status = 200) =>
  expectJson(await sendJson(who, `/api/mcp-servers/${encodeURIComponent(id)}/refresh`, "POST"), status);
const listed = async (who: Api, name: string): Promise<Server | undefined> =>
  (await expectJson(await who.fetch("/api/mcp-servers"), 200)).find((server: Server) => server.name === name);

describe("adding an MCP server", () => {
  it("connects to it and lists its tools: 201 with connected and the tools, and the list says the same", async () => {
    const added = await add(alice, { name: "everything", url: everything.url });
    expect(added).toMatchObject({ name: "everything", source: "personal", status: { state: "connected" } });
    expect(added.tools!.map((tool) => tool.name)).toEqual(expect.arrayContaining(["echo", "get-sum"]));
    expect(added.tools!.find((tool) => tool.name === "echo")?.description).toEqual(expect.any(String));
    expect(await listed(alice, "everything")).toEqual(added);
  });

  it("keeps a server it cannot reach, with why: refused, timed out, its token refused; a bad URL is 400", async () => {
    const port = await freePort();
    const refused = await add(alice, { name: "closed", url: `http://127.0.0.1:${port}/mcp` });
    expect(refused.status).toEqual({
      state: "failed",
      message: `MCP server "closed" refused the connection (nothing listens there) (http://127.0.0.1:${port}/mcp).`,
    });
    expect(refused.tools).toBeUndefined();

    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const started = performance.now();
      const timedOut = await add(alice, {
        name: "silent",
        url: `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/mcp`,
      });
      expect(performance.now() - started).toBeLessThan(CONNECT_TIMEOUT_MS + 3_000);
      expect(timedOut.status).toEqual({
        state: "failed",
        message: `MCP server "silent" did not answer connecting within ${CONNECT_TIMEOUT_MS} ms.`,
      });
      expect(await listed(alice, "silent")).toEqual(timedOut);
    } finally {
      silent.close();
    }

    const locked = await add(alice, { name: "library", url: `${app.url}/api/mcp`, bearerToken: "tsk_wrong" });
    expect(locked.status).toEqual({
      state: "failed",
      message: expect.stringMatching(
        /^MCP server "library" answered HTTP 401 while connecting: The API token is not valid or was revoked\..* Check the headers \(the token\) it is given\.$/,
      ),
    });
    // Stored, each with its failure, to be fixed and refreshed.
    for (const server of [refused, locked]) expect(await listed(alice, server.name)).toEqual(server);

    const bad = await expectJson(
      await sendJson(alice, "/api/mcp-servers", "POST", { name: "bad", url: "not a url" }),
      400,
    );
    expect(bad.error.message).toMatch(/^url: the URL must be an absolute http:\/\/ or https:\/\/ address/);
    expect(await listed(alice, "bad")).toBeUndefined();
  });
});

describe("Refresh", () => {
  it("connects again and lists again: connected once the server is up, failed with why once it is down", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const added = await add(alice, { name: "later", url });
    expect(added.status?.state).toBe("failed");
    const server = await startEverythingHttp(port);
    try {
      const up = await refresh(alice, added.id);
      expect(up).toMatchObject({ id: added.id, name: "later", status: { state: "connected" } });
      expect(up.tools.map((tool: { name: string }) => tool.name)).toContain("echo");
      expect(await listed(alice, "later")).toEqual(up);
    } finally {
      await server.stop();
    }
    const down = await refresh(alice, added.id);
    expect(down.status).toEqual({
      state: "failed",
      message: `MCP server "later" refused the connection (nothing listens there) (${url}).`,
    });
    expect(down.tools).toBeUndefined();
    expect(await listed(alice, "later")).toEqual(down);
  });

  it("is the owner's: another identity's server and an unknown id are 404", async () => {
    const own = (await listed(alice, "everything"))!;
    for (const id of [own.id, "no-such-id"])
      expect((await refresh(bob, id, 404)).error.message).toBe("The MCP server was not found.");
    expect((await refresh(alice, own.id)).status).toEqual({ state: "connected" });
  });
});
