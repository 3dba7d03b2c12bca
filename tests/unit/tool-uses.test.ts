import { describe, expect, it, vi } from "vitest";
import { runToolCode } from "@/lib/tools/library/stored-tool";
import type { CallTool } from "@/lib/tools/types";

// The code runs in the real sandbox; nothing here reaches the database.
vi.mock("@/lib/db/queries/audit", () => ({ recordAudit: vi.fn(async () => {}) }));
vi.mock("@/lib/db/queries/executions", () => ({ recordExecution: vi.fn(async () => {}) }));

/** Calls the tool whose name it builds at run time, which the static check of `uses` cannot see. */
const HIDDEN_CALL =
  'async function run() { const name = ["sh", "out"].join(""); return tools.call(name, { text: "a" }); }';

describe("a stored tool's tools.call, at run time", () => {
  it("serves a call of a tool its uses lists", async () => {
    const callTool = vi.fn<CallTool>(async (_name, input) => ({ ok: true, output: input }));
    const version = { language: "javascript" as const, code: HIDDEN_CALL, uses: ["shout"] };
    expect(await runToolCode(version, {}, undefined, { callTool })).toMatchObject({ ok: true, output: { text: "a" } });
    expect(callTool).toHaveBeenCalledOnce();
  });

  it("refuses a call of any other, whatever the code did to hide the name, without calling it", async () => {
    const callTool = vi.fn<CallTool>(async () => ({ ok: true, output: "reached" }));
    const version = { language: "javascript" as const, code: HIDDEN_CALL, uses: ["greet"] };
    const result = await runToolCode(version, {}, undefined, { callTool });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining(`tools.call("shout") refused: shout is not in this tool's uses (greet)`),
    });
    expect(callTool).not.toHaveBeenCalled();
  });

  it("refuses a Python tool's call of a name its uses leaves out, when the check did not run", async () => {
    const callTool = vi.fn<CallTool>(async () => ({ ok: true, output: "reached" }));
    const code = "def run(inputs):\n    return tools.call('sh' + 'out', {})\n";
    const result = await runToolCode({ language: "python", code, uses: [] }, {}, undefined, { callTool });
    expect(result).toMatchObject({
      ok: false,
      error: expect.stringContaining(`tools.call("shout") refused: shout is not in this tool's uses (none)`),
    });
    expect(callTool).not.toHaveBeenCalled();
  });
});
