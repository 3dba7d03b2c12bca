import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { McpClientPool, type McpServerSpec, type McpToolInfo } from "@/lib/mcp-client";
import { McpCatalog, mcpTool } from "@/lib/tools/mcp-tools";
import { mcpClientLimits } from "@/lib/settings/config";
import { fixtureStdio, startEverythingHttp } from "../tests/support/mcp-servers";
import { ms, summarize, timed } from "./stats";

const CALLS = 500;

/**
 * The MCP client (lib/mcp-client/) on loopback: a call through the pool over stdio (the fixture server, whose tool
 * answers at once) and over Streamable HTTP (server-everything's echo), each beside the same call from the SDK's
 * bare Client, so the pool's own cost shows; and the tools of three servers of 167 tools each, listed cold and then
 * from the cache, and searched as a run's start does.
 */
export async function benchMcpClient(): Promise<void> {
  const pool = new McpClientPool({ limits: { ...mcpClientLimits(), privateHosts: ["127.0.0.1"] } });
  const everything = await startEverythingHttp();
  const bare: Client[] = [];
  try {
    console.log("\n## The MCP client (lib/mcp-client/, loopback)");
    const stdio = fixtureStdio("bench");
    const http: McpServerSpec = { name: "everything", trusted: false, url: everything.url };
    const raw = async (transport: StdioClientTransport | StreamableHTTPClientTransport) => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(transport);
      bare.push(client);
      return client;
    };
    const rawStdio = await raw(
      new StdioClientTransport({
        command: process.execPath,
        args: [...(stdio as { args: string[] }).args],
        stderr: "ignore",
      }),
    );
    const rawHttp = await raw(new StreamableHTTPClientTransport(new URL(everything.url)));

    for (const [label, spec, tool, args, client] of [
      ["stdio (fixture server, echo)", stdio, "echo", { text: "hello" }, rawStdio],
      ["Streamable HTTP (server-everything, echo)", http, "echo", { message: "hello" }, rawHttp],
    ] as const) {
      const viaPool = async () => {
        const result = await pool.call(spec, tool, args, { timeoutMs: 5000 });
        if (!result.ok || result.isError) throw new Error(`call failed: ${JSON.stringify(result)}`);
      };
      const viaSdk = async () => {
        if ((await client.callTool({ name: tool, arguments: args })).isError) throw new Error("call failed");
      };
      for (let i = 0; i < 50; i++) await Promise.all([viaPool(), viaSdk()]);
      const pooled: number[] = [];
      const sdk: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        pooled.push((await timed(viaPool))[0]);
        sdk.push((await timed(viaSdk))[0]);
      }
      const [p, s] = [summarize(pooled), summarize(sdk)];
      console.log(
        `a call over ${label}, the whole round trip: median ${ms(p.median)}, p95 ${ms(p.p95)}; the SDK's bare Client: median ${ms(s.median)}, p95 ${ms(s.p95)}`,
      );
    }

    // Three servers of 167 tools (the fixture's 11 and 156 generated), pages of 100.
    const servers = ["alpha", "beta", "gamma"].map((name) =>
      fixtureStdio(name, { FIXTURE_TOOLS: "156", FIXTURE_PAGE: "100" }),
    );
    const [cold, lists] = await timed(() => Promise.all(servers.map((spec) => pool.tools(spec))));
    const total = lists.reduce((sum, tools) => sum + tools.length, 0);
    const cached: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const [elapsed, again] = await timed(() => Promise.all(servers.map((spec) => pool.tools(spec))));
      if (again.flat().length !== total) throw new Error("the cached list changed");
      cached.push(elapsed);
    }
    const c = summarize(cached);
    console.log(
      `tools of 3 servers (${total} in all): cold (3 processes started, handshakes, 6 pages) ${ms(cold)}; cached: median ${ms(c.median)}, p95 ${ms(c.p95)}`,
    );

    // What a run's start does with them: the catalog of the three lists, searched for the message's best five.
    const catalogOf = (listed: McpToolInfo[][]) =>
      new McpCatalog(
        listed.map((tools, index) => ({
          spec: servers[index],
          listed: tools,
          offered: new Map(tools.map((info) => [info.name, mcpTool(servers[index], info, false)])),
        })),
      );
    const queries = ["answer generated tool number 42", "echo the words", "sleep a while", "list the count"];
    const [firstSearch] = await timed(async () => catalogOf(lists).search(queries[0], 5));
    const searched: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const [elapsed] = await timed(async () => {
        const again = await Promise.all(servers.map((spec) => pool.tools(spec)));
        if (catalogOf(again).search(queries[i % queries.length], 5).length === 0)
          throw new Error("search found nothing");
      });
      searched.push(elapsed);
    }
    const s = summarize(searched);
    console.log(
      `listed and searched (the run's start, ${total} tools of 3 servers): first (indexes built) ${ms(firstSearch)}; then median ${ms(s.median)}, p95 ${ms(s.p95)}`,
    );
  } finally {
    await Promise.all(bare.map((client) => client.close()));
    await pool.closeAll();
    await everything.stop();
  }
}
