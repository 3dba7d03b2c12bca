/**
 * MCP servers the agent may use (issue 40): what one is (`McpServerSpec`, what a run's client layer connects to), the
 * profiles file's `mcp_servers:` entries, the rules every server's name and address follow, wherever it is
 * configured (the file, or a person through the API), the limits on a person's own, and what a profile's MCP keys
 * decide about a tool. Data and pure functions only: connections are lib/mcp-client/'s, storage lib/mcp-servers/'.
 */
import { z } from "zod";

/**
 * A server a run may use. `trusted`: the operator's (the profiles file); a person's own are untrusted and reach only
 * over HTTP. Header and environment values are in clear here: the client layer's alone, never answered to anyone.
 */
export type McpServerSpec = { name: string; trusted: boolean } & (
  { url: string; headers?: Record<string, string> } | { command: string; args?: string[]; env?: Record<string, string> }
);

/** Its tools become `<server>__<tool>`: a name of its own kind, so the split is never ambiguous. */
export const MCP_TOOL_SEPARATOR = "__";

/**
 * The limits of the servers connected through the API (a person's own, an admin's for everyone), as data: the API
 * refuses past them with a sentence naming the limit.
 */
export const MCP_LIMITS = {
  serversPerPerson: 20,
  serversForEveryone: 20,
  nameChars: 32,
  urlChars: 2048,
  headersPerServer: 16,
  headerNameChars: 100,
  headerValueChars: 4096,
} as const;

/** A server's name: lower-case letters, digits, _ and -, up to 32, never `__` (which separates it from a tool). */
export const McpServerName = z
  .string()
  .regex(
    /^[a-z0-9_-]+$/,
    `a server's name is lower-case letters, digits, _ and - (its tools are called <name>${MCP_TOOL_SEPARATOR}<tool>)`,
  )
  .max(MCP_LIMITS.nameChars, `a server's name is at most ${MCP_LIMITS.nameChars} characters`)
  .refine((name) => !name.includes(MCP_TOOL_SEPARATOR), {
    message: `a server's name may not contain "${MCP_TOOL_SEPARATOR}", which separates it from its tools' names`,
  });

/** Why an address is not a server's URL, or undefined when it is one: http or https, without a user or password. */
export function urlProblem(text: string): string | undefined {
  if (text.length > MCP_LIMITS.urlChars) return `a server's URL is at most ${MCP_LIMITS.urlChars} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "the URL must be an absolute http:// or https:// address, e.g. https://mcp.example.com/mcp";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `the URL must be http:// or https:// (got ${url.protocol}); stdio servers are configured by the operator in the profiles file`;
  if (url.username || url.password)
    return "the URL may not carry a user or password; send credentials as a header or a bearer token";
  return undefined;
}

export const McpServerUrl = z.string().superRefine((text, context) => {
  const problem = urlProblem(text);
  if (problem) context.addIssue({ code: "custom", message: problem });
});

/**
 * A map whose keys follow a rule, each bad key reported at itself with the rule's words (zod's own record keys say
 * only "Invalid key in record").
 */
const mapOf = <Value extends z.ZodType>(value: Value, key: (name: string) => string | undefined) =>
  z.record(z.string(), value).superRefine((map, context) => {
    for (const name of Object.keys(map)) {
      const problem = key(name);
      if (problem) context.addIssue({ code: "custom", path: [name], message: problem });
    }
  });

/** Headers that would forge the connection or the MCP session rather than describe the caller: the client's own. */
const RESERVED_HEADERS = new Set([
  "host",
  "connection",
  "content-length",
  "content-type",
  "accept",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "proxy-authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "last-event-id",
]);

/** An HTTP header's name (RFC 9110's token), within the limits; undefined when it is one. */
export function headerNameProblem(name: string): string | undefined {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    return `"${name}" is not a header's name: letters, digits and - (e.g. X-Api-Key)`;
  if (RESERVED_HEADERS.has(name.toLowerCase()))
    return `the header "${name}" is set by the MCP client itself; send credentials as Authorization or another header`;
  if (name.length > MCP_LIMITS.headerNameChars)
    return `a header's name is at most ${MCP_LIMITS.headerNameChars} characters`;
  return undefined;
}
export const HeaderValue = z
  .string()
  .max(MCP_LIMITS.headerValueChars, `a header's value is at most ${MCP_LIMITS.headerValueChars} characters`)
  .regex(/^[^\r\n\0]*$/, "a header's value may not contain a line break");
export const Headers = mapOf(HeaderValue, headerNameProblem)
  .refine((headers) => Object.keys(headers).length <= MCP_LIMITS.headersPerServer, {
    message: `at most ${MCP_LIMITS.headersPerServer} headers per server`,
  })
  .refine(
    (headers) => new Set(Object.keys(headers).map((name) => name.toLowerCase())).size === Object.keys(headers).length,
    { message: "a header is named twice (names are case-insensitive)" },
  );

/** The profiles file's top-level `mcp_servers:` entry: a URL (with headers) or a command (with args and env). */
export const McpServerEntry = z
  .strictObject({
    name: McpServerName,
    url: McpServerUrl.optional().describe("Streamable HTTP: the server's endpoint."),
    headers: Headers.optional().describe("With url: headers sent with every request (e.g. Authorization)."),
    command: z.string().min(1).optional().describe("stdio: the program to start (the operator's only)."),
    args: z.array(z.string()).optional().describe("With command: its arguments."),
    env: mapOf(z.string(), (name) =>
      /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)
        ? undefined
        : `"${name}" is not an environment variable's name: letters, digits and _`,
    )
      .optional()
      .describe("With command: its whole environment, with PATH; never Toolsmith's own."),
  })
  .superRefine((entry, context) => {
    const problem = (path: string, message: string) => context.addIssue({ code: "custom", path: [path], message });
    if (entry.url !== undefined && entry.command !== undefined)
      problem("command", "a server has a url (Streamable HTTP) or a command (stdio), not both");
    else if (entry.url === undefined && entry.command === undefined)
      problem("name", `the server "${entry.name}" needs a url (Streamable HTTP) or a command (stdio)`);
    if (entry.command !== undefined && entry.headers !== undefined)
      problem("headers", "headers go with a url; a command's server takes env");
    for (const key of ["args", "env"] as const)
      if (entry.url !== undefined && entry[key] !== undefined)
        problem(key, `${key} goes with a command; a url's server takes headers`);
  });
export type McpServerEntry = z.infer<typeof McpServerEntry>;

/** A bearer token is an Authorization header; the rest are shown by name. Names only: values never leave the server. */
export function describeHeaders(headers: Record<string, string> | undefined): {
  headerNames: string[];
  bearer: boolean;
} {
  const names = Object.keys(headers ?? {});
  const bearer = names.find((name) => name.toLowerCase() === "authorization" && /^bearer /i.test(headers![name]));
  return { headerNames: names.filter((name) => name !== bearer), bearer: bearer !== undefined };
}

/** The file's entry as a run's spec: trusted, being the operator's. */
export function fileServerSpec(entry: McpServerEntry): McpServerSpec {
  const { name, url, headers, command, args, env } = entry;
  return url !== undefined
    ? { name, trusted: true, url, ...(headers && { headers }) }
    : { name, trusted: true, command: command!, ...(args && { args }), ...(env && { env }) };
}

/** When an MCP tool asks a person before it runs: `unless_read_only` (the default) asks unless it says it only reads. */
export const MCP_APPROVAL = ["never", "unless_read_only", "always"] as const;
export type McpApproval = (typeof MCP_APPROVAL)[number];

/** The hints a server gives a tool (MCP's ToolAnnotations); a server may give none, so none is trusted to be safe. */
export interface McpToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** Whether a call of a tool with these hints waits for a person's approval under the profile's `approve_mcp_tools`. */
export function mcpCallNeedsApproval(mode: McpApproval, hints: McpToolHints | undefined): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  return hints?.readOnlyHint !== true || hints.destructiveHint === true;
}

/** What of a profile decides which MCP servers and tools its runs get. */
export interface McpProfile {
  mcp_servers: string[];
  personal_mcp_servers: boolean;
  /** `server__tool` names: when given, only these MCP tools (absent: every tool of the servers it uses). */
  mcp_tools?: string[];
  approve_mcp_tools: McpApproval;
}

/** Whether the profile offers a server's tool (by its own name on the server). */
export function mcpToolAllowed(profile: Pick<McpProfile, "mcp_tools">, server: string, tool: string): boolean {
  return profile.mcp_tools === undefined || profile.mcp_tools.includes(`${server}${MCP_TOOL_SEPARATOR}${tool}`);
}

/** In a profile's tool_config, `<server>__*` is every tool of the server: one rate limit for their calls together. */
export const MCP_EVERY_TOOL = "*";

/** An MCP tool's key in a profile's mcp_tools and tool_config: `<server>__<tool>`. */
export const MCP_TOOL_KEY = /^[a-z0-9_-]+__.+$/;

/** The server part of a `<server>__<tool>` key. */
export const serverOfKey = (key: string): string => key.slice(0, key.indexOf(MCP_TOOL_SEPARATOR));

export interface RateLimit {
  calls: number;
  per_seconds: number;
}

/**
 * The profile's rate limit of a call of an MCP tool, and the bucket it is counted in: the tool's own entry in
 * tool_config (`server__tool`), else its server's (`server__*`, one bucket for all the server's tools).
 */
export function mcpRateLimit(
  toolConfig: Record<string, { rate_limit?: RateLimit }>,
  server: string,
  qualifiedName: string,
): { bucket: string; limit: RateLimit } | undefined {
  const own = toolConfig[qualifiedName]?.rate_limit;
  if (own) return { bucket: qualifiedName, limit: own };
  const bucket = `${server}${MCP_TOOL_SEPARATOR}${MCP_EVERY_TOOL}`;
  const limit = toolConfig[bucket]?.rate_limit;
  return limit && { bucket, limit };
}
