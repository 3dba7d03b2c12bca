import { DEFAULT_INHERITED_ENV_VARS, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { McpServerSpec, McpStdioSpec } from "./spec";
import { serverLabel } from "./spec";

/**
 * The environment of a stdio server's process: exactly its entry's `env`, plus `PATH` (the entry's, else the app's)
 * so that its command is found. Never the app's own (TOOLSMITH_SECRET, model keys, DATABASE_URL). The SDK adds a
 * default environment of its own (HOME, USER, SHELL…) under the given one; those names are given as undefined, which
 * Node's spawn leaves out.
 */
export function serverEnvironment(spec: McpStdioSpec): Record<string, string> {
  const unset = Object.fromEntries(DEFAULT_INHERITED_ENV_VARS.map((name) => [name, undefined]));
  const path = spec.env?.PATH ?? process.env.PATH;
  return { ...unset, ...spec.env, ...(path === undefined ? {} : { PATH: path }) } as Record<string, string>;
}

/** What a stdio server wrote to stderr: the first `maxBytes` go to the app's log, the last lines are kept. */
export class StderrLog {
  private logged = 0;
  private tail = "";

  constructor(
    private readonly label: string,
    private readonly maxBytes: number,
  ) {}

  write(chunk: Buffer): void {
    const text = chunk.toString("utf8");
    this.tail = (this.tail + text).slice(-2048);
    if (this.logged >= this.maxBytes) return;
    const shown = text.slice(0, this.maxBytes - this.logged);
    this.logged += Buffer.byteLength(shown);
    for (const line of shown.split("\n").filter((line) => line.trim())) console.warn(`${this.label}: ${line}`);
    if (this.logged >= this.maxBytes)
      console.warn(`${this.label}: stderr past ${this.maxBytes} bytes is not logged (this connection).`);
  }

  /** The last line it wrote, for an error message. */
  lastLine(): string | undefined {
    const lines = this.tail.split("\n").filter((line) => line.trim());
    return lines.at(-1)?.trim().slice(0, 300);
  }
}

/**
 * The SDK's stdio transport for a trusted spec: the process gets `serverEnvironment`, its stderr is piped into a
 * `StderrLog`, and a message on stdout over `maxMessageBytes` ends the connection (the SDK's read buffer refuses it
 * before holding more).
 */
export function stdioTransport(
  spec: McpServerSpec & McpStdioSpec,
  limits: { maxMessageBytes: number; maxStderrBytes: number },
): { transport: StdioClientTransport; stderr: StderrLog } {
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args ?? [],
    env: serverEnvironment(spec),
    stderr: "pipe",
    maxBufferSize: limits.maxMessageBytes,
  });
  const stderr = new StderrLog(serverLabel(spec), limits.maxStderrBytes);
  transport.stderr?.on("data", (chunk: Buffer) => stderr.write(chunk));
  return { transport, stderr };
}
