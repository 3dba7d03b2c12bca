import { createHash } from "node:crypto";
import { processWide } from "@/lib/platform/process-wide";
import type { McpServerSpec } from "@/lib/settings/mcp-servers";

/** A server's name: its tools are offered as `${name}__${tool}`, so it is short and plain. */
export const SERVER_NAME = /^[a-z0-9_-]{1,32}$/;

export type { McpServerSpec };
export type McpHttpSpec = Omit<Extract<McpServerSpec, { url: string }>, "name" | "trusted">;
export type McpStdioSpec = Omit<Extract<McpServerSpec, { command: string }>, "name" | "trusted">;

export const isStdioSpec = (spec: McpServerSpec): spec is McpServerSpec & McpStdioSpec => "command" in spec;

/**
 * A failure of a server as a whole (it cannot be reached, started or listed, or its spec is refused): `tools()`
 * throws it, and its message names the server, for a status line or the model. One class per process, so that
 * `instanceof` holds across Next's copies of this module.
 */
export const McpClientError = processWide(
  "McpClientError",
  () =>
    class McpClientError extends Error {
      constructor(
        readonly server: string,
        message: string,
      ) {
        super(message);
        this.name = "McpClientError";
      }
    },
);
export type McpClientError = InstanceType<typeof McpClientError>;

/** How messages name a server. */
export const serverLabel = (spec: Pick<McpServerSpec, "name">) => `MCP server "${spec.name}"`;

/** The spec's problem, if it has one that no connection could fix. */
export function specProblem(spec: McpServerSpec): string | undefined {
  if (!SERVER_NAME.test(spec.name))
    return `An MCP server's name must be 1 to 32 of a-z, 0-9, _ and - (got "${String(spec.name).slice(0, 40)}").`;
  const label = serverLabel(spec);
  if (isStdioSpec(spec)) {
    if (!spec.trusted)
      return `${label} is a command to run, which only the operator's profiles file may configure; connect a person's server by URL.`;
    if (!spec.command) return `${label} has an empty command.`;
    return undefined;
  }
  if (typeof spec.url !== "string" || !/^https?:\/\//i.test(spec.url))
    return `${label} needs an http(s) URL (got "${String(spec.url).slice(0, 200)}").`;
  return undefined;
}

/**
 * The pool's key: a digest of the spec's whole content (keys sorted), so that a changed spec (a new header, another
 * env value) is a new connection, and no secret is kept as a map key.
 */
export function specKey(spec: McpServerSpec): string {
  return createHash("sha256").update(canonical(spec)).digest("base64url");
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object")
    return `{${Object.keys(value)
      .sort()
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
      .join(",")}}`;
  return JSON.stringify(value);
}
