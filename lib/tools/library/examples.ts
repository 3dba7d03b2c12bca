import type { ExampleOutcome } from "@/lib/contract/events";

/* How a tool's output is held against an example's (pure: the trace's export uses it too). */

/**
 * Numbers match when |a − b| ≤ RELATIVE_TOLERANCE · max(|a|, |b|): 0.1 + 0.2 matches 0.3, and a tool's float
 * arithmetic may differ from the example's in its last bits. Zero matches only zero.
 */
export const RELATIVE_TOLERANCE = 1e-9;

/** Longest JSON of a value shown in a failure message: the model needs to see the difference, not a dump. */
const SHOWN_CHARS = 400;

/**
 * Whether a tool's output is the expected one: JSON equality where an object's key order does not matter, array
 * order does, and numbers are equal within RELATIVE_TOLERANCE. A missing value (undefined) counts as null.
 */
export function matchesExpected(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "number" && typeof expected === "number") {
    return (
      actual === expected ||
      Math.abs(actual - expected) <= RELATIVE_TOLERANCE * Math.max(Math.abs(actual), Math.abs(expected))
    );
  }
  if (Array.isArray(actual) || Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      Array.isArray(expected) &&
      actual.length === expected.length &&
      actual.every((item, index) => matchesExpected(item, expected[index]))
    );
  }
  if (isObject(actual) && isObject(expected)) {
    const keys = Object.keys(expected);
    return (
      Object.keys(actual).length === keys.length &&
      keys.every((key) => Object.hasOwn(actual, key) && matchesExpected(actual[key], expected[key]))
    );
  }
  return (actual ?? null) === (expected ?? null);
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** The failed examples, as the model reads them: the input, the expected output, and what came instead. */
export function describeFailures(outcomes: ExampleOutcome[]): string {
  return outcomes
    .filter((outcome) => !outcome.passed)
    .map(
      ({ input, expected_output, actual_output, error }) =>
        `- input ${shown(input)}: expected ${shown(expected_output)}, ` +
        (error === undefined ? `got ${shown(actual_output)}` : `failed: ${error}`),
    )
    .join("\n");
}

function shown(value: unknown): string {
  const json = JSON.stringify(value ?? null);
  return json.length <= SHOWN_CHARS ? json : `${json.slice(0, SHOWN_CHARS)}… (${json.length} characters)`;
}
