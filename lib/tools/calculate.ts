import { evaluateExpression } from "./math-expression";
import type { AgentTool } from "./types";

export const calculate: AgentTool = {
  name: "calculate",
  description:
    "Evaluate a math expression exactly, without code. Operators: + - * / // % ** and comparisons; " +
    "functions: abs, round(x, digits), min, max, sqrt, sin, cos, tan, log (natural, or log(x, base)), log10; " +
    "constants: pi, e. Example: sqrt(16) + 2 ** 10.",
  parametersSchema: {
    type: "object",
    properties: { expression: { type: "string", description: "The expression, e.g. (10 + 5) * 3" } },
    required: ["expression"],
    additionalProperties: false,
  },
  async execute(input) {
    const { expression } = input as { expression: string };
    try {
      return { ok: true, output: evaluateExpression(expression) };
    } catch (error) {
      return { ok: false, error: `Cannot evaluate "${expression.slice(0, 200)}": ${(error as Error).message}` };
    }
  },
};
