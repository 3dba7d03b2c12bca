import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkCode } from "@/lib/sandbox/check";
import { SandboxPool } from "@/lib/sandbox/pool";

interface Payload {
  id: string;
  code: string;
  harness: "stmts" | "expr";
}

const corpusFile = path.resolve(process.cwd(), "../shared/data/escape-corpus.json");
const publicCorpus: Payload[] = fs.existsSync(corpusFile) ? JSON.parse(fs.readFileSync(corpusFile, "utf8")) : [];
// A copy travels with the tests, so that CI on a clean clone runs them too.
const bundledCorpus: Payload[] = JSON.parse(
  fs.readFileSync(path.resolve(process.cwd(), "tests/data/escape-corpus.json"), "utf8"),
);
const corpus = publicCorpus.length > 0 ? publicCorpus : bundledCorpus;

/** Probes written for this sandbox: QuickJS specifics and the host functions it injects. */
const probes: Payload[] = [
  { id: "injected-console-constructor", harness: "expr", code: "console.log.constructor('return typeof process')()" },
  { id: "injected-fetch-constructor", harness: "expr", code: "fetch.constructor('return this')().process" },
  { id: "quickjs-std-module", harness: "expr", code: "import('std').then((std) => std.getenv('HOME'))" },
  { id: "quickjs-os-module", harness: "expr", code: "import('os').then((os) => os.exec(['id']))" },
  {
    id: "global-this-scan",
    harness: "expr",
    code: "Object.getOwnPropertyNames(globalThis).filter((k) => /process|require|Buffer|module|std|os/.test(k))",
  },
  { id: "function-ctor-from-arrow", harness: "expr", code: "(() => {}).constructor('return typeof require')()" },
  { id: "async-function-ctor", harness: "expr", code: "(async () => {}).constructor('return process')()" },
  { id: "generator-ctor", harness: "expr", code: "(function* () {}).constructor('return process')().next()" },
  {
    id: "error-stack-host-frames",
    harness: "expr",
    code: "(() => { Error.prepareStackTrace = (e, s) => s; return new Error().stack; })()",
  },
  {
    id: "symbol-species",
    harness: "stmts",
    code: "class X extends Array { static get [Symbol.species]() { return function () { return this.constructor.constructor('return process')(); }; } } return new X(1).map((x) => x);",
  },
  {
    id: "proxy-trap",
    harness: "stmts",
    code: "const p = new Proxy({}, { get: (t, k, r) => r.constructor.constructor('return process')() }); return p.x;",
  },
  {
    id: "wasm-escape",
    harness: "expr",
    code: "typeof WebAssembly === 'object' ? WebAssembly.Module.toString() : 'none'",
  },
  { id: "file-fetch", harness: "expr", code: "fetch('file:///etc/passwd').then((r) => r.text())" },
  {
    id: "metadata-fetch",
    harness: "expr",
    code: "fetch('http://169.254.169.254/latest/meta-data/').then((r) => r.text())",
  },
  {
    id: "deferred-job-after-return",
    harness: "stmts",
    code: "Promise.resolve().then(() => { for (;;) {} }); return 1;",
  },
];

const CANARY = `canary-${Math.random().toString(36).slice(2)}`;
process.env.TOOLSMITH_ESCAPE_CANARY = CANARY;

const pool = new SandboxPool(2);
afterAll(() => pool.close());

const limits = {
  timeoutMs: 1000,
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  outputChars: 16_384,
  consoleChars: 8_192,
};
const asTool = ({ code, harness }: Payload) =>
  harness === "expr" ? `function run() {\n  return (${code});\n}` : `function run() {\n${code}\n}`;

/**
 * What reaching the host would look like in an outcome: the canary from the host's environment, a Node
 * process object's fields, or the output of a command.
 */
function reachedHost(outcome: unknown): boolean {
  const text = JSON.stringify(outcome);
  return (
    text.includes(CANARY) ||
    /"(pid|mainModule|execPath|versions)"|uid=\d+|node_modules|\/usr\/bin|\[object process\]/.test(text)
  );
}

describe("the public escape corpus and our probes", () => {
  it("has the corpus", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(47);
  });

  it.each([...corpus, ...probes].map((payload) => [payload.id, payload] as const))(
    "contains %s",
    async (_id, payload) => {
      const code = asTool(payload);
      // Layer 2 on its own, without the policy in front: the runtime must contain every payload by itself.
      const outcome = await pool.run(
        { mode: "tool", code, limits },
        {
          fetch: async () => {
            throw new Error("blocked in this test");
          },
        },
      );
      expect(reachedHost(outcome)).toBe(false);
      expect(fs.existsSync(path.join(process.cwd(), "flag"))).toBe(false);
      expect(fs.existsSync(path.join(process.cwd(), "pwned"))).toBe(false);
    },
  );

  it("layer 1 alone rejects nearly all of the public corpus", () => {
    const rejected = corpus.filter((payload) => !checkCode(asTool(payload)).ok);
    expect(rejected.length / corpus.length).toBeGreaterThan(0.9);
  });
});
