import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { config } from "@/lib/settings/config";
import { checkCode, type CheckOptions, type CheckResult, type Violation } from "./check";
import { CODE_NETWORK, domainGuard, guardedFetch, type DomainRules } from "./fetch-guard";
import { processWide } from "@/lib/platform/process-wide";
import {
  SandboxPool,
  type CodeWorkspace,
  type FetchRequest,
  type RunMode,
  type SandboxOutcome,
  type ToolCallHandler,
} from "./pool";
import type { ToolSource } from "./languages";
import type { SecretBoundary } from "./secret-boundary";
import { checkPython, runPython } from "./python";

export { checkCode, type Violation } from "./check";
export type { CodeWorkspace, FilesRequest } from "./pool";
export { ToolLanguage, type ToolSource } from "./languages";
export { pythonPool } from "./python";

export type SandboxResult = SandboxOutcome | (Extract<SandboxOutcome, { ok: false }> & { violations: Violation[] });

// One pool per server process, whatever loads this module (and dev-mode reloads leak no threads).
export function sandboxPool(): SandboxPool {
  return processWide("sandboxPool", () => new SandboxPool(config.sandboxWorkers));
}

/**
 * The policy's verdict on code, in its own language: JavaScript's is acorn's walk, Python's its own `ast`. With
 * `uses` (the tools the code says it calls), each tools.call must name one of them as a literal, and `tools` be used
 * no other way.
 */
export async function checkSource(source: ToolSource, options: CheckOptions = {}): Promise<CheckResult> {
  return source.language === "python" ? checkPython(source.code, options) : checkCode(source.code, options);
}

/** What a call's code may use of the host: tools.call, the network's rules, and whether another tool called it. */
export interface SandboxServices {
  /** Serves the code's `tools.call` (a stored tool's, lib/tools/call.ts); without it, each is refused. */
  callTool?: ToolCallHandler;
  /** This code was called by another tool's: it may use a thread or process beyond the pool's size. */
  nested?: boolean;
  /** The profile's `network:` (allowed and blocked domains), on top of the guard's public addresses only. */
  network?: DomainRules;
  /** The conversation's workspace: Python's /mnt/data, JavaScript's `files`; none outside a conversation. */
  workspace?: CodeWorkspace;
  /** The secrets the code may use: it reads placeholders, the guard fills them in for their hosts (lib/secrets/). */
  secrets?: SecretBoundary;
}

/**
 * Run code in the sandbox: the policy again, whatever checked it before, then the language's sandbox under the
 * limits. `tool` calls the entry point with `input`, `compile` checks that it defines one, `snippet` returns its
 * last value; `signal` stops it all. JavaScript's fetch and Python's requests and urllib go through one guard.
 */
export async function runInSandbox(
  mode: RunMode,
  source: ToolSource,
  input?: unknown,
  signal?: AbortSignal,
  { callTool, nested, network = {}, workspace, secrets }: SandboxServices = {},
): Promise<SandboxResult> {
  const served = callTool && upTo(config.toolCallsPerCall, "tools.call calls", callTool);
  const guard = domainGuard(network, CODE_NETWORK);
  const fetch = upTo(config.fetch.maxRequestsPerCall, "requests", (request: FetchRequest, fetchSignal: AbortSignal) =>
    guardedFetch(request, { limits: config.fetch, signal: fetchSignal, ...guard, secrets }),
  );
  const placeholders = secrets?.placeholders();
  if (source.language === "python") {
    const outcome = await runPython(mode, source.code, input, signal, {
      callTool: served,
      fetch,
      nested,
      workspace: workspace?.folder,
      secrets: placeholders,
    });
    return "violations" in outcome ? refusedByPolicy(outcome.violations) : withoutSecrets(outcome, secrets);
  }
  const { code } = source;
  const check = checkedCode(code, mode !== "snippet");
  if (!check.ok) return refusedByPolicy(check.violations);
  // JavaScript reads the body as text: the bytes stay here.
  const textFetch = (request: FetchRequest, fetchSignal: AbortSignal) =>
    fetch(request, fetchSignal).then(({ bytes: _bytes, ...reply }) => reply);
  const outcome = await sandboxPool().run(
    { mode, code, input, limits: config.sandbox, nested, secrets: placeholders },
    { fetch: textFetch, callTool: served, files: workspace?.files },
    signal,
  );
  return withoutSecrets(outcome, secrets);
}

/**
 * Code the policy passed on an earlier call, by its hash and whether it must define `run`. Every call is checked (code
 * stored under an older policy meets this one), but the verdict on the same code cannot change while the server runs,
 * and parsing it again was a sixth of the server's CPU per API call (docs/performance.md).
 */
const passedChecks = new LRUCache<string, true>({ max: 5_000 });

function checkedCode(code: string, requireEntryPoint: boolean): CheckResult {
  const key = `${requireEntryPoint ? "tool" : "snippet"}:${createHash("sha256").update(code).digest("base64")}`;
  if (passedChecks.has(key)) return { ok: true };
  const check = checkCode(code, { requireEntryPoint });
  if (check.ok) passedChecks.set(key, true);
  return check;
}

/**
 * An outcome with any secret's value taken out of what the code returned, printed or threw. Replies are redacted
 * before the code sees them; this holds for a value that came back some other way (an error's text, say).
 */
function withoutSecrets(outcome: SandboxOutcome, secrets?: SecretBoundary): SandboxOutcome {
  if (!secrets) return outcome;
  const logs = outcome.logs.map((line) => secrets.redact(line));
  if (!outcome.ok)
    return { ...outcome, logs, error: { ...outcome.error, message: secrets.redact(outcome.error.message) } };
  const output = JSON.stringify(outcome.output) ?? "null";
  const redacted = secrets.redact(output);
  return {
    ...outcome,
    logs,
    ...(redacted !== output && { output: JSON.parse(redacted) as unknown }),
    ...(outcome.text !== undefined && { text: secrets.redact(outcome.text) }),
  };
}

/** A host service that refuses past `limit` requests in one call. */
function upTo<Request, Reply>(
  limit: number,
  what: string,
  serve: (request: Request, signal: AbortSignal) => Promise<Reply>,
): (request: Request, signal: AbortSignal) => Promise<Reply> {
  let made = 0;
  return (request, signal) =>
    ++made > limit ? Promise.reject(new Error(`More than ${limit} ${what} in one call.`)) : serve(request, signal);
}

/** A call refused before it ran: the violations, as the model reads them and as structured data. */
export function refusedByPolicy(violations: Violation[]): SandboxResult {
  return {
    ok: false,
    error: { kind: "error", message: `Code refused by policy: ${violations.map(formatViolation).join("; ")}` },
    violations,
    logs: [],
    consoleTruncated: false,
    durationMs: 0,
  };
}

export function formatViolation(violation: Violation): string {
  return `line ${violation.line}, column ${violation.column}: ${violation.message}`;
}
