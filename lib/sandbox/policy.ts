import { z } from "zod";

/**
 * What tool code may not say: layer 1 of the sandbox, checked before the code is stored or run. QuickJS is the real
 * boundary; this makes obvious escapes fail early, with a line and column the model can act on.
 */
export const codePolicy = {
  /** Source larger than this is refused outright. */
  maxCodeBytes: 64 * 1024,
  /** Stop reporting after this many violations: the model needs the first few, not thousands. */
  maxViolations: 20,
  /** The function every tool must define. */
  entryPoint: "run",

  /** Names that reach the host, reflect on the realm, or compile code. Refused as identifiers anywhere. */
  forbiddenIdentifiers: new Set([
    "require",
    "module",
    "exports",
    "process",
    "global",
    "globalThis",
    "self",
    "window",
    "eval",
    "Function",
    "AsyncFunction",
    "GeneratorFunction",
    "AsyncGeneratorFunction",
    "Reflect",
    "Proxy",
    "WebAssembly",
    "SharedArrayBuffer",
    "Atomics",
    "importScripts",
    "Deno",
    "Bun",
    "std",
    "os",
  ]),

  /** Property names that climb to constructors or prototypes. Refused as member names, keys and string literals. */
  forbiddenProperties: new Set([
    "constructor",
    "__proto__",
    "caller",
    "callee",
    "setPrototypeOf",
    "defineGetter",
    "defineSetter",
    "lookupGetter",
    "lookupSetter",
  ]),

  /** Identifiers or properties with this prefix are engine internals. */
  forbiddenPrefix: "__",

  /** May be read (Array.prototype.slice) but never assigned through. */
  writeProtectedProperties: new Set(["prototype"]),
} as const;

/** Where the code breaks the policy, for a person or a model to fix: a message, a line and a column. */
export const Violation = z.object({ message: z.string(), line: z.number().int(), column: z.number().int() });
export type Violation = z.infer<typeof Violation>;
