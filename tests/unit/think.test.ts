import { describe, expect, it } from "vitest";
import { MAX_THOUGHT_CHARS, think } from "@/lib/tools/native/think";
import type { ToolContext } from "@/lib/tools/types";

/** A context any use of which throws: a tool that runs under it reads, and so changes, nothing of the run. */
const untouchable = new Proxy({} as ToolContext, {
  get(_target, property) {
    throw new Error(`think used the context's ${String(property)}`);
  },
});

const parsed = (input: unknown) => {
  const check = think.parse(input);
  if (!check.ok) throw new Error(check.problems.join("; "));
  return check.input;
};

describe("think", () => {
  it("acknowledges a plan, and uses nothing of the run: no owner, conversation, tool set or signal", async () => {
    const result = await think.execute(parsed({ thought: "1. Write a word counter.\n2. Call it." }), untouchable);
    expect(result).toEqual({ ok: true, output: "Noted." });
  });

  it("takes a plan up to its limit, and refuses a longer one, an empty one or anything beside it", () => {
    expect(parsed({ thought: "x".repeat(MAX_THOUGHT_CHARS) }).thought).toHaveLength(MAX_THOUGHT_CHARS);
    expect(think.parse({ thought: "x".repeat(MAX_THOUGHT_CHARS + 1) })).toEqual({
      ok: false,
      problems: [`thought: at most ${MAX_THOUGHT_CHARS} characters: write the plan, not the work`],
    });
    expect(think.parse({ thought: "" })).toMatchObject({ ok: false, problems: [expect.stringMatching(/^thought: /)] });
    expect(think.parse({ thought: "plan", code: "run()" })).toMatchObject({ ok: false });
  });

  it("shows the model the limit in its schema", () => {
    expect(think.parametersSchema).toMatchObject({
      required: ["thought"],
      properties: { thought: { type: "string", maxLength: MAX_THOUGHT_CHARS } },
      additionalProperties: false,
    });
  });
});
