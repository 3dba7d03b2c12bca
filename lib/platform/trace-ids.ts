import { createHash } from "node:crypto";

/*
 * A run's OpenTelemetry ids, derived from its id and each span's key rather than random: the trace exported, the one
 * downloaded and the W3C traceparent an MCP call carries (lib/tools/mcp-tools.ts) all name the same spans.
 */

const digest = (text: string, hexDigits: number) => createHash("sha256").update(text).digest("hex").slice(0, hexDigits);

export const traceIdOf = (runId: string): string => digest(runId, 32);
export const spanIdOf = (runId: string, key: string): string => digest(`${runId}/${key}`, 16);

/** A tool call's span key: known when the call starts, unlike its event's id. */
export const toolSpanKey = (step: number, callId: string): string => `call:${step}:${callId}`;

/** The W3C traceparent of a tool call's execute_tool span (sampled). */
export const toolCallTraceparent = (runId: string, step: number, callId: string): string =>
  `00-${traceIdOf(runId)}-${spanIdOf(runId, toolSpanKey(step, callId))}-01`;
