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
 * (lib/sandbox/python/policy.py) before the code is stored and before each call, and applied again at run time
 * (curated builtins, imports of the allowlist only). The jail around the process is what holds past it.
 */
export const pythonPolicy = {
  maxCodeBytes: codePolicy.maxCodeBytes,
  maxViolations: codePolicy.maxViolations,
  entryPoint: codePolicy.entryPoint,
  /**
   * What a tool may import, with the submodules of each (numpy.linalg, matplotlib.pyplot, urllib.parse). PR #120's
   * list: json, re, math, datetime, collections, itertools (the standard library's everyday ones), urllib and
   * requests (the web, through the host's guard), pandas and numpy (tables and arrays), bs4 (HTML). matplotlib
   * draws charts the person sees; tabulate and openpyxl are what pandas' to_markdown and read_excel/to_excel need.
   * Then the pure computation a data tool reaches for: random, statistics, fractions and decimal (numbers),
   * functools, operator, heapq and bisect (algorithms), string, textwrap, unicodedata, html and csv (text), calendar
   * (dates), base64 and hashlib (encodings and checksums), typing (annotations models write), pathlib (folders and
   * files of /mnt/data: what it reaches is the jail's).
   */
  allowedModules: [
    ...["json", "re", "math", "datetime", "collections", "itertools", "urllib", "requests", "pandas", "numpy", "bs4"],
    ...["matplotlib", "tabulate", "openpyxl"],
    ...["random", "statistics", "fractions", "decimal", "functools", "operator", "heapq", "bisect", "string"],
    ...["textwrap", "unicodedata", "html", "csv", "calendar", "base64", "hashlib", "typing", "pathlib"],
  ],
  /**
   * Members of allowed modules that read attributes by name (a getattr by another name) or evaluate strings: refused
   * as attributes and as imported names. functools.update_wrapper (and wraps, which calls it) getattr()s every name
   * in `assigned`; singledispatch and typing's get_type_hints evaluate string annotations with the real builtins;
   * pandas' eval evaluates expressions.
   */
  hiddenMembers: [
    ...["update_wrapper", "wraps", "singledispatch", "singledispatchmethod", "attrgetter", "methodcaller"],
    ...["Formatter", "get_type_hints", "ForwardRef", "evaluate_forward_ref", "eval"],
  ],
  /**
   * Modules outside the list that allowed ones hold as attributes (pd.io.common.os, bs4.os, datetime.sys,
   * matplotlib.subprocess, np.ctypeslib.ctypes): refused as attribute names, as an import of them would be.
   */
  reachedModules: [
    ...["os", "sys", "subprocess", "ctypes", "ctypeslib", "builtins", "importlib", "shutil", "socket", "pickle"],
    ...["marshal", "posix", "signal", "threading", "multiprocessing", "inspect", "gc", "mmap", "pty", "runpy"],
  ],
  /** Modules the allowed ones import lazily: imported up front, so that a call starts with them loaded. */
  preload: ["_strptime", "matplotlib.pyplot", "urllib.request", "urllib.parse", "bs4.builder"],
  /**
   * Builtins that reflect, run code, reach the terminal, or end the interpreter. Refused as names anywhere. `open` is
   * not among them: what it reaches is the jail's (the conversation's files in /mnt/data, a scratch /tmp).
   */
  bannedNames: [
    "exec",
    "eval",
    "compile",
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
    // AttributeError.obj: the object whose attribute a failed lookup named, a getattr by another name.
    "obj",
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
