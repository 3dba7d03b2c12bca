import { describe, expect, it } from "vitest";
import { checkCode } from "@/lib/sandbox/check";

const tool = (body: string) => `function run(inputs) {\n${body}\n}`;

/** Code the policy must refuse, with a word its message must contain. */
const rejected: [string, string, string][] = [
  ["require", tool("return require('fs');"), "require"],
  ["require via alias", tool("const r = require; return r('child_process');"), "require"],
  ["module.exports", "module.exports = 1;\nfunction run() {}", "module"],
  ["exports", "exports.x = 1;\nfunction run() {}", "exports"],
  ["static import", "import fs from 'fs';\nfunction run() {}", "import"],
  ["named import", "import { readFile } from 'fs';\nfunction run() {}", "import"],
  ["export", "export function run() {}", "export"],
  ["export default", "function run() {}\nexport default run;", "export"],
  ["dynamic import", tool("return import('fs');"), "import()"],
  ["import.meta", tool("return import.meta.url;"), "import.meta"],
  ["process", tool("return process.env;"), "process"],
  ["process in template", tool("return `${process.pid}`;"), "process"],
  ["globalThis", tool("return globalThis.process;"), "globalThis"],
  ["global", tool("return global.process;"), "global"],
  ["self", tool("return self;"), "self"],
  ["window", tool("return window;"), "window"],
  ["eval", tool("return eval('1+1');"), "eval"],
  ["indirect eval", tool("return (0, eval)('1');"), "eval"],
  ["Function", tool("return Function('return this')();"), "Function"],
  ["new Function", tool("return new Function('return 1')();"), "Function"],
  ["AsyncFunction name", tool("const AsyncFunction = 1; return AsyncFunction;"), "AsyncFunction"],
  ["constructor member", tool("return inputs.constructor;"), "constructor"],
  ["constructor chain", tool("return ''.constructor.constructor('return this')();"), "constructor"],
  ["constructor computed literal", tool("return inputs['constructor'];"), "constructor"],
  ["constructor string", tool("const k = 'constructor'; return inputs[k];"), "constructor"],
  ["constructor template string", tool("const k = `constructor`; return inputs[k];"), "constructor"],
  ["constructor destructuring", tool("const { constructor: c } = inputs; return c;"), "constructor"],
  ["constructor in object key", tool("return { constructor: 1 };"), "constructor"],
  ["class constructor", "class A { constructor() {} }\nfunction run() { return new A(); }", "constructor"],
  ["__proto__ member", tool("return inputs.__proto__;"), "__proto__"],
  ["__proto__ key", tool("return { __proto__: null };"), "__proto__"],
  ["__proto__ string", tool("return inputs['__proto__'];"), "__proto__"],
  ["__defineGetter__", tool("inputs.__defineGetter__('x', () => 1);"), "__defineGetter__"],
  ["__lookupGetter__", tool("return inputs.__lookupGetter__('x');"), "__lookupGetter__"],
  ["dunder identifier", tool("const __secret = 1; return __secret;"), "__"],
  ["dunder dirname", tool("return __dirname;"), "__dirname"],
  ["dunder filename", tool("return __filename;"), "__filename"],
  ["prototype assignment", "function A() {}\nA.prototype.x = 1;\nfunction run() {}", "prototype"],
  ["prototype replace", "function A() {}\nA.prototype = {};\nfunction run() {}", "prototype"],
  ["builtin prototype write", tool("Array.prototype.map = null;"), "prototype"],
  ["prototype computed write", tool("Object['prototype'].polluted = 1;"), "prototype"],
  ["prototype update", tool("Number.prototype.x++;"), "prototype"],
  ["prototype delete", tool("delete Array.prototype.map;"), "prototype"],
  ["Object.assign prototype", tool("Object.assign(Array.prototype, { x: 1 });"), "prototype"],
  ["defineProperty prototype", tool("Object.defineProperty(Object.prototype, 'x', { value: 1 });"), "prototype"],
  ["setPrototypeOf", tool("Object.setPrototypeOf(inputs, null);"), "setPrototypeOf"],
  ["Reflect", tool("return Reflect.ownKeys(inputs);"), "Reflect"],
  ["Proxy", tool("return new Proxy({}, {});"), "Proxy"],
  ["WebAssembly", tool("return WebAssembly.compile(new Uint8Array());"), "WebAssembly"],
  ["SharedArrayBuffer", tool("return new SharedArrayBuffer(8);"), "SharedArrayBuffer"],
  ["Atomics", tool("return Atomics.wait;"), "Atomics"],
  ["with statement", tool("with (inputs) { return x; }"), "with"],
  ["arguments.callee", tool("return arguments.callee;"), "callee"],
  ["caller", "function f() { return f.caller; }\nfunction run() { return f(); }", "caller"],
  ["private dunder field", "class A { #__x = 1; }\nfunction run() { return 1; }", "__x"],
  ["QuickJS std module", tool("return std.loadFile('/etc/passwd');"), "std"],
  ["QuickJS os module", tool("return os.exec(['ls']);"), "os"],
  ["no run function", "function main(inputs) { return 1; }", "run"],
  ["run is not a function", "const run = 5;", "run"],
  ["run nested, not top level", "function outer() { function run() {} }", "run"],
  ["syntax error", "function run( {", "Syntax error"],
  ["too large", `function run() { return 1; }\n// ${"x".repeat(70 * 1024)}`, "64 KB"],
];

/** Code the policy must let through. */
const allowed: [string, string][] = [
  ["plain function", "function run(inputs) { return inputs.a + inputs.b; }"],
  ["async function", "async function run(inputs) { const r = await fetch(inputs.url); return r.status; }"],
  ["arrow const", "const run = (inputs) => inputs.text.length;"],
  ["function expression", "const run = function (inputs) { return 1; };"],
  ["async arrow", "const run = async ({ text }) => text.split(' ');"],
  [
    "helpers and classes",
    "class Stack { push(x) { this.items = [...(this.items ?? []), x]; } }\nfunction run() { const s = new Stack(); s.push(1); return s.items; }",
  ],
  ["prototype read", "function run({ list }) { return Array.prototype.slice.call(list, 1); }"],
  ["regex and json", "function run({ text }) { return JSON.parse(JSON.stringify(text.match(/\\d+/g))); }"],
  ["computed access", "function run({ counts, key }) { counts[key] = (counts[key] ?? 0) + 1; return counts; }"],
  ["Math and Date", "function run() { return { r: Math.round(2.5), y: new Date(0).getUTCFullYear() }; }"],
  ["console", "function run() { console.log('hi'); return null; }"],
  ["generators", "function* gen() { yield 1; }\nfunction run() { return [...gen()]; }"],
  ["map and set", "function run({ xs }) { return [...new Set(xs)].map((x) => x * 2); }"],
  ["template literals", "function run({ name }) { return `Hello, ${name}!`; }"],
  ["underscore names", "function run({ a_b }) { const _private = 1; return a_b + _private; }"],
  ["destructuring defaults", "function run({ a = 1, b: { c } = { c: 2 } }) { return a + c; }"],
  ["try/catch", "function run() { try { JSON.parse('{'); } catch (error) { return error.message; } }"],
  [
    "labels and loops",
    "function run() { let n = 0; outer: for (let i = 0; i < 3; i++) { for (;;) { n++; continue outer; } } return n; }",
  ],
];

describe("the code policy", () => {
  it.each(rejected)("rejects %s", (_name, code, word) => {
    const result = checkCode(code);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.violations.map((violation) => violation.message).join(" ")).toContain(word);
    for (const violation of result.violations) {
      expect(violation.line).toBeGreaterThanOrEqual(1);
      expect(violation.column).toBeGreaterThanOrEqual(1);
    }
  });

  it.each(allowed)("allows %s", (_name, code) => {
    expect(checkCode(code)).toEqual({ ok: true });
  });

  it("has at least 60 cases", () => {
    expect(rejected.length + allowed.length).toBeGreaterThanOrEqual(60);
  });

  it("reports each violation at its line and 1-based column, in order", () => {
    const result = checkCode("function run() {\n  const a = require('fs');\n    return process.env;\n}");
    expect(result).toEqual({
      ok: false,
      violations: [
        { line: 2, column: 13, message: expect.stringContaining("require") },
        { line: 3, column: 12, message: expect.stringContaining("process") },
      ],
    });
  });

  it("reports the position of a syntax error", () => {
    const result = checkCode("function run() {\n  return 1 +;\n}");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.violations[0]).toMatchObject({ line: 2, column: 13 });
  });

  it("does not require run for snippets", () => {
    expect(checkCode("[1, 2, 3].map((x) => x * 2)", { requireEntryPoint: false })).toEqual({ ok: true });
    expect(checkCode("process.exit()", { requireEntryPoint: false }).ok).toBe(false);
  });

  it("caps the number of violations it reports", () => {
    const result = checkCode(tool("process;".repeat(100)));
    expect(result.ok || result.violations.length).toBe(20);
  });
});

describe("the tools a tool says it calls (uses)", () => {
  const uses = ["shout", "github__search"];
  const at = (code: string) => {
    const result = checkCode(code, { uses });
    return result.ok ? [] : result.violations.map(({ line, column, message }) => ({ line, column, message }));
  };

  it("passes tools.call with a literal name listed in uses, an MCP tool's included", () => {
    const code =
      "async function run({ text }) {\n  const a = await tools.call('shout', { text });\n" +
      '  const b = await tools.call(`github__search`, { q: text });\n  return tools.call("shout", { text: a + b });\n}';
    expect(checkCode(code, { uses })).toEqual({ ok: true });
    expect(checkCode("function run() { return 1; }", { uses: [] })).toEqual({ ok: true });
  });

  it("refuses a name not in uses, saying what to add, at its line and column", () => {
    expect(at("async function run() {\n  return tools.call('whisper', {});\n}")).toEqual([
      { line: 2, column: 21, message: 'tools.call("whisper") names a tool not in uses: add "whisper" to uses.' },
    ]);
  });

  it("refuses a name that is not a literal: computed, a variable, a template with a substitution, none", () => {
    const forms = [
      "  return tools.call('sh' + 'out', {});",
      "  const name = 'shout';\n  return tools.call(name, {});",
      "  return tools.call(`${'shout'}`, {});",
      "  return tools.call(...['shout', {}]);",
      "  return tools.call();",
    ];
    for (const form of forms) {
      const violations = at(`async function run() {\n${form}\n}`);
      expect(violations, form).toEqual([
        expect.objectContaining({
          message: expect.stringContaining("tools.call needs the tool's name as a string literal"),
        }),
      ]);
      expect(violations[0].line, form).toBe(form.split("\n").length + 1);
    }
  });

  it("refuses `tools` used any other way than a direct tools.call, which would hide what is called", () => {
    const forms = [
      "  const call = tools.call;\n  return call('whisper', {});",
      "  return tools['call']('whisper', {});",
      "  const { call } = tools;\n  return call('whisper', {});",
      "  return helper(tools);",
      "  return tools.call.bind(null)('whisper', {});",
      "  return (0, tools.call)('whisper', {});",
      "  const tools = { call: (n) => n };\n  return tools.call('shout');",
      "  return new tools.call('shout', {});",
    ];
    for (const form of forms) {
      const violations = at(`async function run() {\n${form}\n}`);
      expect(violations.length, form).toBeGreaterThan(0);
      expect(
        violations.some((violation) => violation.message.startsWith("`tools` may only be used as tools.call")),
        form,
      ).toBe(true);
    }
    expect(at("function run(tools) {\n  return tools.call('shout', {});\n}")[0]).toMatchObject({ line: 1, column: 14 });
  });

  it("leaves code alone when no uses is given: the checks before each run pass none", () => {
    expect(checkCode("async function run() { const c = tools.call; return c('x' + 'y', {}); }")).toEqual({ ok: true });
  });
});
