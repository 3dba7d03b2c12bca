import { Validator } from "@cfworker/json-schema";
import { z } from "zod";
import { config } from "@/lib/config";
import { saveToolVersion, toolView } from "@/lib/db/tools";
import { checkCode, formatViolation, runInSandbox } from "@/lib/sandbox";
import { codePolicy } from "@/lib/sandbox/policy";
import { defineTool } from "./define-tool";
import { registeredTool, sandboxFailure } from "./registered-tool";

const MAX_SCHEMA_CHARS = 16 * 1024;

const { timeoutMs, memoryBytes } = config.sandbox;

export const registerTool = defineTool({
  name: "register_tool",
  description:
    "Create a new tool when none of the available tools fits the task. The code is JavaScript that defines " +
    "`function run(inputs)` (may be async) returning a JSON-serialisable value; `inputs` matches parameters_schema. " +
    "It runs in a sandbox: no require/import/process/eval/Function/globalThis/constructor/__proto__, no Node APIs; " +
    `console.log and fetch(url) to public http(s) hosts are available. Limits per call: ${timeoutMs} ms, ` +
    `${memoryBytes / 1024 / 1024} MB of memory. The tool is callable by its name right after registration and in ` +
    "later turns. Registering an existing name makes a new version.",
  changesToolset: true,
  inputSchema: z.strictObject({
    name: z.string().regex(/^[a-zA-Z][a-zA-Z0-9_]{0,63}$/).describe("snake_case name, e.g. word_count"),
    description: z.string().min(1).max(2000).describe("What the tool does, for the model."),
    parameters_schema: z
      .record(z.string(), z.unknown())
      .describe('JSON Schema of the inputs, e.g. {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}'),
    code: z.string().min(1).max(codePolicy.maxCodeBytes).describe("JavaScript source defining function run(inputs)."),
  }),
  async execute(registration, context) {
    const { name, code } = registration;
    const existing = context.tools.get(name);
    if (existing && !existing.toolId) return { ok: false, error: `"${name}" is a built-in tool; choose another name.` };

    const schemaProblem = checkParametersSchema(registration.parameters_schema);
    if (schemaProblem) return { ok: false, error: `Invalid parameters_schema: ${schemaProblem}` };

    const check = checkCode(code);
    if (!check.ok) {
      return {
        ok: false,
        error: `Tool "${name}" was rejected by the code policy. Fix these and register it again:\n${check.violations.map(formatViolation).join("\n")}`,
        rejected: { name, code, violations: check.violations },
      };
    }
    const compiled = await runInSandbox("compile", code, undefined, context.signal);
    if (!compiled.ok) {
      const failure = sandboxFailure(compiled);
      return { ...failure, error: `Tool "${name}" failed to load: ${failure.error}` };
    }

    const row = await saveToolVersion({
      conversationId: context.conversationId,
      runId: context.runId,
      name,
      description: registration.description,
      parametersSchema: registration.parameters_schema,
      code,
    });
    context.tools.add(registeredTool(row));
    return {
      ok: true,
      output: { registered: name, version: row.version, message: `Tool "${name}" v${row.version} is registered; call it by name.` },
      registered: toolView(row),
    };
  },
});

function checkParametersSchema(schema: Record<string, unknown>): string | undefined {
  if (JSON.stringify(schema).length > MAX_SCHEMA_CHARS) return `larger than ${MAX_SCHEMA_CHARS} characters.`;
  if (schema.type !== "object") return 'it must be an object schema: {"type": "object", "properties": {...}}.';
  if (schema.properties !== undefined && (typeof schema.properties !== "object" || Array.isArray(schema.properties))) {
    return "`properties` must be an object.";
  }
  try {
    new Validator(schema, "2020-12").validate({});
  } catch (error) {
    return `it cannot be used for validation (${(error as Error).message}).`;
  }
  return undefined;
}
