import { describe, expect, it } from "vitest";
import { calculate } from "@/lib/tools/native/calculate";
import { evaluateExpression } from "@/lib/tools/native/math-expression";

describe("evaluateExpression", () => {
  it.each([
    ["2 + 2", 4],
    ["(10 + 5) * 3", 45],
    ["sqrt(16) + pi", 4 + Math.PI],
    ["max(10, 20, 15)", 20],
    ["min(3, 1, 2)", 1],
    ["round(3.14159, 2)", 3.14],
    ["round(2.5)", 2],
    ["round(3.5)", 4],
    ["2 ** 10", 1024],
    ["2 ** 3 ** 2", 512],
    ["-2 ** 2", -4],
    ["2 ** -1", 0.5],
    ["7 // 2", 3],
    ["-7 // 2", -4],
    ["7 % 3", 1],
    ["-7 % 3", 2],
    ["abs(-3.5)", 3.5],
    ["log(e)", 1],
    ["log(8, 2)", 3],
    ["log10(1000)", 3],
    ["sin(0) + cos(0)", 1],
    ["1e3 + .5", 1000.5],
    ["1 < 2", true],
    ["1 < 2 < 3", true],
    ["3 > 2 > 1", true],
    ["3 > 2 > 2", false],
    ["2 == 2.0", true],
    ["1 != 1", false],
  ])("%s = %s", (expression, expected) => {
    const value = evaluateExpression(expression);
    if (typeof expected === "number") expect(value).toBeCloseTo(expected, 10);
    else expect(value).toBe(expected);
  });

  it.each([
    ["1 / 0", /division by zero/],
    ["5 // 0", /division by zero/],
    ["sqrt(-1)", /domain/],
    ["log(0)", /domain/],
    ["(-8) ** 0.5", /domain/],
    ["2 +", /end of expression/],
    ["(1 + 2", /expected "\)"/],
    ["1 2", /unexpected "2"/],
    ["foo + 1", /unknown name "foo"/],
    ["process.exit()", /unknown|unexpected/],
    ["constructor(1)", /unknown function/],
    ["__proto__", /unknown name/],
    ["round(1, 2, 3)", /arguments/],
    ["'a'", /unexpected character/],
    ["", /empty/],
    ["(".repeat(100) + "1" + ")".repeat(100), /nested too deeply/],
    ["1+".repeat(1500) + "1", /longer than/],
  ])("refuses %s", (expression, message) => {
    expect(() => evaluateExpression(expression)).toThrow(message);
  });
});

describe("the calculate tool", () => {
  it("returns the value, or an error the model can read", async () => {
    const context = {} as never;
    expect(await calculate.execute({ expression: "6 * 7" }, context)).toEqual({ ok: true, output: 42 });
    expect(await calculate.execute({ expression: "6 *" }, context)).toMatchObject({
      ok: false,
      error: expect.stringContaining("Cannot evaluate"),
    });
  });
});
