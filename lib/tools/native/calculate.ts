import { z } from "zod";
import { defineTool } from "@/lib/tools/define-tool";
import { evaluateExpression } from "./math-expression";

export const calculate = defineTool({
  name: "calculate",
  description:
    "Evaluate a math expression exactly, without code. Operators: + - * / // % ** and comparisons; " +
    "functions: abs, round(x, digits), min, max, sqrt, sin, cos, tan, log (natural, or log(x, base)), log10; " +
    "constants: pi, e. Example: sqrt(16) + 2 ** 10.",
  inputSchema: z.strictObject({ expression: z.string().describe("The expression, e.g. (10 + 5) * 3") }),
  async execute({ expression }) {
    try {
      return { ok: true, output: evaluateExpression(expression) };
    } catch (error) {
      return { ok: false, error: `Cannot evaluate "${expression.slice(0, 200)}": ${(error as Error).message}` };
    }
  },
});
