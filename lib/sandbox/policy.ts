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

/**
 * What Python tool code may say and reach: the design notes' rules, checked with Python's own `ast` in the sandbox
 * (lib/sandbox/python/harness.py), and applied again at run time (curated builtins, per-call module views).
 */
export const pythonPolicy = {
  maxCodeBytes: codePolicy.maxCodeBytes,
  maxViolations: codePolicy.maxViolations,
  entryPoint: codePolicy.entryPoint,
  /**
   * The design notes' ten, plus pure computation a data tool reaches for: functools, operator, heapq and bisect
   * (algorithms), string, textwrap, unicodedata, html and csv (text; csv.reader takes lines, no file is needed),
   * calendar (dates), base64 and hashlib (encodings and checksums), typing (annotations models write). None of them
   * opens a file, a socket or a process.
   */
  allowedModules: [
    "math",
    "random",
    "statistics",
    "datetime",
    "itertools",
    "json",
    "re",
    "collections",
    "collections.abc",
    "fractions",
    "decimal",
    "functools",
    "operator",
    "heapq",
    "bisect",
    "string",
    "textwrap",
    "unicodedata",
    "html",
    "csv",
    "calendar",
    "base64",
    "hashlib",
    "typing",
  ],
  /**
   * Members of allowed modules that read attributes by name (a getattr by another name) or evaluate strings.
   * functools.update_wrapper (and wraps, which calls it) getattr()s every name in `assigned`, dunders built at run
   * time included, and setattr()s it where cached_property reads it back.
   */
  hiddenMembers: {
    functools: ["update_wrapper", "wraps"],
    operator: ["attrgetter", "methodcaller"],
    string: ["Formatter"],
    typing: ["get_type_hints", "ForwardRef", "evaluate_forward_ref"],
  },
  /** Modules the allowed ones import lazily: imported up front, so that a call does not change sys.modules. */
  preload: ["_strptime"],
  /** Builtins that reflect, run code, reach files or the terminal, or end the interpreter. Refused as names anywhere. */
  bannedNames: [
    "exec",
    "eval",
    "compile",
    "open",
    "globals",
    "locals",
    "vars",
    "getattr",
    "setattr",
    "delattr",
    "input",
    "breakpoint",
    "exit",
    "quit",
    "help",
    "memoryview",
    "object",
    "super",
    "copyright",
    "credits",
    "license",
  ],
  /** Attributes that climb to frames, code objects and the interpreter without a leading underscore. */
  bannedAttributes: [
    "gi_frame",
    "gi_code",
    "gi_yieldfrom",
    "gi_suspended",
    "cr_frame",
    "cr_code",
    "cr_await",
    "cr_origin",
    "ag_frame",
    "ag_code",
    "ag_await",
    "f_back",
    "f_globals",
    "f_locals",
    "f_builtins",
    "f_code",
    "f_trace",
    "tb_frame",
    "tb_next",
    "co_code",
    "co_consts",
    "co_names",
    "mro",
    "format_map",
  ],
  /** The built-in types a positional class pattern may name (`case int(n)`): each matches itself, reading nothing. */
  selfMatchingClasses: [
    "bool",
    "bytearray",
    "bytes",
    "dict",
    "float",
    "frozenset",
    "int",
    "list",
    "set",
    "str",
    "tuple",
  ],
  /** A string holding this names internals (`"__class__"`), whatever reads it later. */
  dunderString: "__",
} as const;
