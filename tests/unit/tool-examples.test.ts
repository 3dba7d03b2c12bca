import { describe, expect, it } from "vitest";
import { describeFailures, matchesExpected, RELATIVE_TOLERANCE } from "@/lib/tools/library/examples";

describe("an example's expected output", () => {
  it.each([
    ["0.1 + 0.2 and 0.3", 0.1 + 0.2, 0.3],
    ["numbers within the relative tolerance", 1e12 + 1, 1e12],
    [
      "objects whose keys come in another order",
      { b: [1, { d: 2, c: 3 }], a: "x" },
      { a: "x", b: [1, { c: 3, d: 2 }] },
    ],
    ["nothing returned and null", undefined, null],
    ["equal strings, booleans and nulls", ["s", true, null], ["s", true, null]],
  ])("matches %s", (_, actual, expected) => expect(matchesExpected(actual, expected)).toBe(true));

  it.each([
    ["numbers past the tolerance", 1 + 10 * RELATIVE_TOLERANCE, 1],
    ["zero and a tiny number", 1e-20, 0],
    ["a number and its string", 3, "3"],
    ["arrays in another order", [1, 2], [2, 1]],
    ["an object with a key more", { a: 1, b: 2 }, { a: 1 }],
    ["an object with a key missing", { a: 1 }, { a: 1, b: 2 }],
    ["an object and an array", { 0: 1 }, [1]],
    ["a key that is undefined and one that is missing", { a: undefined, b: 1 }, { b: 1, c: null }],
    ["null and 0", null, 0],
    ["NaN and null", Number.NaN, null],
  ])("does not match %s", (_, actual, expected) => expect(matchesExpected(actual, expected)).toBe(false));

  it("describes only the failed examples, each with its input, the expected output and what came instead", () => {
    const text = describeFailures([
      { input: { x: 1 }, expected_output: 2, passed: true, actual_output: 2 },
      { input: { x: 2 }, expected_output: 4, passed: false, actual_output: 5 },
      { input: { x: "a" }, expected_output: 0, passed: false, error: "TypeError: not a number" },
      { input: { x: "long" }, expected_output: "y".repeat(1000), passed: false, actual_output: "z" },
    ]);
    expect(text.split("\n")).toEqual([
      '- input {"x":2}: expected 4, got 5',
      '- input {"x":"a"}: expected 0, failed: TypeError: not a number',
      `- input {"x":"long"}: expected "${"y".repeat(399)}… (1002 characters), got "z"`,
    ]);
  });
});
