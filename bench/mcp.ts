import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as TransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { ms, summarize, timed } from "./stats";

const LIBRARY_SIZE = 2000;
const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const CODE = "function run({ text }) { return { words: text.split(/\\s+/).filter(Boolean).length }; }";
// One tool in ten reaches the web: its annotation comes from an acorn walk of the code on every listing.
const FETCHING = "async function run({ text }) { const answer = await fetch(text); return { status: answer.status }; }";

/**
 * /api/mcp over a library of 2,000 tools, from the SDK's clients on loopback: a tools/list page (100 tools), the
 * whole library as the current client walks it, and a tools/call beside the same call through the REST API.
 */
export async function benchMcp(): Promise<void> {
  const app = scriptedApp("http://127.0.0.1:9/v1");
  await app.start();
  try {
    const { token } = await new Api(app.url).createToken("bench");
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    let firstId = "";
    for (let start = 0; start < LIBRARY_SIZE; start += 8) {
      const batch = Array.from({ length: Math.min(8, LIBRARY_SIZE - start) }, (_, offset) => start + offset);
      const ids = await Promise.all(
        batch.map(async (i) => {
          const body = {
            name: `tool_${String(i).padStart(4, "0")}`,
            description: `Tool ${i}.`,
            parameters_schema: SCHEMA,
          };
          const response = await fetch(`${app.url}/api/tools`, {
            method: "POST",
            headers,
            body: JSON.stringify({ ...body, code: i % 10 === 0 ? FETCHING : CODE }),
          });
          if (response.status !== 201) throw new Error(`create failed: ${response.status} ${await response.text()}`);
          return ((await response.json()) as { id: string }).id;
        }),
      );
      firstId ||= ids[1];
    }

    const url = new URL(`${app.url}/api/mcp`);
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    const paged = new ClientV1({ name: "bench-v1", version: "1.0.0" });
    await paged.connect(new TransportV1(url, { requestInit }));
    const walking = new Client(
      { name: "bench", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await walking.connect(new StreamableHTTPClientTransport(url, { requestInit }));

    const { nextCursor } = await paged.listTools();
    for (let i = 0; i < 20; i++) await paged.listTools({ cursor: nextCursor });
    const pageTimes: number[] = [];
    for (let i = 0; i < 100; i++) pageTimes.push((await timed(() => paged.listTools({ cursor: nextCursor })))[0]);
    const walkTimes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const [elapsed, { tools }] = await timed(() => walking.listTools(undefined, { cacheMode: "refresh" }));
      if (tools.length !== LIBRARY_SIZE) throw new Error(`listed ${tools.length} tools`);
      walkTimes.push(elapsed);
    }

    const input = { text: "the quick brown fox" };
    const viaMcp = async () => {
      if ((await walking.callTool({ name: "tool_0001", arguments: input })).isError) throw new Error("call failed");
    };
    const viaRest = async () => {
      const response = await fetch(`${app.url}/api/tools/${firstId}/execute`, {
        method: "POST",
        headers,
        body: JSON.stringify({ input }),
      });
      if (!((await response.json()) as { ok: boolean }).ok) throw new Error("execute failed");
    };
    for (let i = 0; i < 30; i++) await Promise.all([viaMcp(), viaRest()]);
    const mcpTimes: number[] = [];
    const restTimes: number[] = [];
    for (let i = 0; i < 200; i++) {
      mcpTimes.push((await timed(viaMcp))[0]);
      restTimes.push((await timed(viaRest))[0]);
    }
    await Promise.all([paged.close(), walking.close()]);

    const [page, walk, call, rest] = [pageTimes, walkTimes, mcpTimes, restTimes].map(summarize);
    console.log(`\n## The library over MCP (${LIBRARY_SIZE} tools, the SDK's clients on loopback)`);
    console.log(`tools/list, a page of 100 (2025-11-25 client): median ${ms(page.median)}, p95 ${ms(page.p95)}`);
    console.log(
      `tools/list, all ${LIBRARY_SIZE / 100} pages as the 2026-07-28 client walks them: median ${ms(walk.median)}, p95 ${ms(walk.p95)}`,
    );
    console.log(
      `tools/call (2026-07-28): median ${ms(call.median)}, p95 ${ms(call.p95)}; the same call through POST /api/tools/{id}/execute: median ${ms(rest.median)}, p95 ${ms(rest.p95)}`,
    );
  } finally {
    await app.stop();
  }
}
