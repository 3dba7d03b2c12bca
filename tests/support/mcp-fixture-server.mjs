// A small MCP server over stdio, built with the SDK's server, for what server-everything does not do on demand:
// tools/list in pages of FIXTURE_PAGE (default 2) over FIXTURE_TOOLS generated tools (default 5), a tool that adds a
// tool and says tools/list_changed, and tools that misbehave (a huge result, a malformed one, a process that dies
// mid-call, a flood of stderr). Run: node tests/support/mcp-fixture-server.mjs
import { ProtocolError, ProtocolErrorCode, Server } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";

const pageSize = Number(process.env.FIXTURE_PAGE ?? 2);
const generated = Number(process.env.FIXTURE_TOOLS ?? 5);
const object = (properties = {}) => ({ type: "object", properties });

const tools = [
  { name: "echo", description: "Returns its arguments.", inputSchema: object({ text: { type: "string" } }) },
  {
    name: "sleep",
    description: "Waits `ms` milliseconds, then answers.",
    inputSchema: object({ ms: { type: "number" } }),
  },
  { name: "add_tool", description: "Adds a tool and says tools/list_changed.", inputSchema: object() },
  { name: "huge", description: "Answers `bytes` bytes of text.", inputSchema: object({ bytes: { type: "number" } }) },
  { name: "malformed", description: "Answers a result that is not a tool result.", inputSchema: object() },
  { name: "die", description: "The process exits during the call.", inputSchema: object() },
  { name: "shout", description: "Writes `bytes` bytes to stderr.", inputSchema: object({ bytes: { type: "number" } }) },
  { name: "meta", description: "Answers the request's _meta.", inputSchema: object() },
  { name: "list_count", description: "Answers how many tools/list requests it served.", inputSchema: object() },
  { name: "pid", description: "Answers its process id.", inputSchema: object() },
  { name: "noise", description: "Writes JSON that is not JSON-RPC, and never answers.", inputSchema: object() },
  ...Array.from({ length: generated }, (_, index) => ({
    name: `tool_${String(index).padStart(3, "0")}`,
    description: `Generated tool number ${index}, which answers its input.`,
    inputSchema: object({ value: { type: "string", description: "Anything." } }),
    annotations: { readOnlyHint: index % 2 === 0 },
  })),
];

const server = new Server({ name: "fixture", version: "1.0.0" }, { capabilities: { tools: { listChanged: true } } });

let listRequests = 0;
server.setRequestHandler("tools/list", ({ params }) => {
  listRequests++;
  const start = params?.cursor ? Number(params.cursor) : 0;
  if (!Number.isInteger(start)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "Bad cursor.");
  const end = start + pageSize;
  return { tools: tools.slice(start, end), ...(end < tools.length ? { nextCursor: String(end) } : {}) };
});

server.setRequestHandler("tools/call", async ({ params }) => {
  const args = params.arguments ?? {};
  const text = (value) => ({ content: [{ type: "text", text: value }] });
  switch (params.name) {
    case "echo":
      return { ...text(JSON.stringify(args)), structuredContent: args };
    case "sleep":
      await new Promise((resolve) => setTimeout(resolve, Number(args.ms ?? 0)));
      return text("slept");
    case "add_tool": {
      const name = `added_${tools.length}`;
      tools.push({ name, description: "Added at run time.", inputSchema: object() });
      await server.sendToolListChanged();
      return text(name);
    }
    case "huge":
      return text("x".repeat(Number(args.bytes ?? 1024)));
    case "malformed":
      return { content: "not a list of blocks" };
    case "die":
      setTimeout(() => process.exit(3), 20);
      return new Promise(() => {});
    case "shout":
      process.stderr.write(`${"e".repeat(99)}\n`.repeat(Math.ceil(Number(args.bytes ?? 100) / 100)));
      return text("shouted");
    case "noise":
      process.stdout.write('{"jsonrpc":"1.0","answer":42}\n');
      return new Promise(() => {});
    case "pid":
      return text(String(process.pid));
    case "list_count":
      return text(String(listRequests));
    case "meta":
      return text(JSON.stringify(params._meta ?? {}));
    default:
      if (tools.some((tool) => tool.name === params.name)) return text(JSON.stringify(args));
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  }
});

await server.connect(new StdioServerTransport());
