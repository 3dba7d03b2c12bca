import type { SandboxResult } from "@/lib/sandbox";
import type { ToolResult } from "./types";

/**
 * A result as every caller sees it (the model, the trace, the API): at most `limit` characters of output or error,
 * with a marker that says how much was cut. Output that was cut becomes text.
 */
export function capResult(result: ToolResult, limit: number): ToolResult {
  const marker = (total: string) =>
    `\n…[truncated: the output was ${total} characters; only the first ${limit} are shown]`;
  if (!result.ok) {
    if (result.error.length <= limit) return result;
    return { ...result, error: result.error.slice(0, limit) + marker(String(result.error.length)) };
  }
  const text = typeof result.output === "string" ? result.output : JSON.stringify(result.output ?? null);
  // Python's printed value goes by the same limit: the value's JSON text and its str() are about as long.
  const printed = result.text !== undefined && result.text.length > limit ? { text: undefined } : {};
  if (!result.truncated && text.length <= limit) return { ...result, output: result.output ?? null, ...printed };
  const total = result.truncated ? `more than ${limit}` : String(text.length);
  return { ...result, output: text.slice(0, limit) + marker(total), truncated: true, text: undefined };
}

/** What the code printed, with a last line saying when the sandbox cut it. */
export const consoleLines = (result: SandboxResult): string[] =>
  result.consoleTruncated ? [...result.logs, "[console output truncated]"] : result.logs;

/** A finished sandbox call as a tool result: its value, what it printed and the figures it drew. */
export function sandboxSuccess(result: Extract<SandboxResult, { ok: true }>): Extract<ToolResult, { ok: true }> {
  const logs = consoleLines(result);
  return {
    ok: true,
    output: result.output,
    truncated: result.outputTruncated,
    text: result.text,
    ...(logs.length > 0 && { logs }),
    ...(result.images?.length && { images: result.images }),
  };
}

/** A failed sandbox call as a tool result. Console output is the best clue to why code failed: it goes along. */
export function sandboxFailure(result: Extract<SandboxResult, { ok: false }>): Extract<ToolResult, { ok: false }> {
  const logs = consoleLines(result);
  const error =
    logs.length === 0 ? result.error.message : `${result.error.message}\nConsole output:\n${logs.join("\n")}`;
  // Code the policy refused never ran: a refusal, audited as one.
  if ("violations" in result) return { ok: false, error, refused: true };
  return { ok: false, error, cancelled: result.error.kind === "cancelled" };
}
