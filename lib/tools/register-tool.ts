import { Validator } from "@cfworker/json-schema";
import { saveToolVersion } from "@/lib/db/tools";
import { checkCode, formatViolation, runInSandbox } from "@/lib/sandbox";
import { codePolicy } from "@/lib/sandbox/policy";
import { registeredTool, toolView } from "./registered-tool";
import type { AgentTool, ToolResult } from "./types";

const MAX_SCHEMA_CHARS = 16 * 1024;

interface Registration {
  name: string;
  description: string;
  parameters_schema: Record<string, unknown>;
  code: string;
}

export const registerTool: AgentTool = {
  name: "register_tool",
  description:
    "Create a new tool when none of the available tools fits the task. The code is JavaScript that defines " +
    "`function run(inputs)` (may be async) returning a JSON-serialisable value; `inputs` matches parameters_schema. " +
    "It runs in a sandbox: no require/import/process/eval/Function/globalThis/constructor/__proto__, no Node APIs; " +
    "console.log and fetch(url) to public http(s) hosts are available. Limits: 5 s, 64 MB. The tool is callable " +
    "by its name right after registration and in later turns. Registering an existing name makes a new version.",
  changesToolset: true,
  parametersSchema: {
    type: "object",
    properties: {
      name: { type: "string", pattern: "^[a-zA-Z][a-zA-Z0-9_]{0,63}$", description: "snake_case name, e.g. word_count" },
      description: { type: "string", minLength: 1, maxLength: 2000, description: "What the tool does, for the model." },
      parameters_schema: { type: "object", description: 'JSON Schema of the inputs, e.g. {"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}' },
      code: { type: "string", minLength: 1, maxLength: codePolicy.maxCodeBytes, description: "JavaScript source defining function run(inputs)." },
    },
    required: ["name", "description", "parameters_schema", "code"],
    additionalProperties: false,
  },
  async execute(input, context): Promise<ToolResult> {
    const registration = input as Registration;
    const { name, code } = registration;
    const existing = context.toolset.get(name);
    if (existing && !existing.toolId) return { ok: false, error: `"${name}" is a built-in tool; choose another name.` };

    const schemaProblem = checkParametersSchema(registration.parameters_schema);
    if (schemaProblem) return { ok: false, error: `Invalid parameters_schema: ${schemaProblem}` };

    const check = checkCode(code);
    if (!check.ok) {
      return {
        ok: false,
        error: `Tool "${name}" was rejected by the code policy. Fix these and register it again:\n${check.violations.map(formatViolation).join("\n")}`,
        rejected: { name, violations: check.violations },
      };
    }
    const compiled = await runInSandbox("compile", code);
    if (!compiled.ok) return { ok: false, error: `Tool "${name}" failed to load: ${compiled.error!.message}` };

    const row = await saveToolVersion({
      conversationId: context.conversationId,
      runId: context.runId,
      name,
      description: registration.description,
      parametersSchema: registration.parameters_schema,
      code,
    });
    context.toolset.add(registeredTool(row));
    return {
      ok: true,
      output: { registered: name, version: row.version, message: `Tool "${name}" v${row.version} is registered; call it by name.` },
      registered: toolView(row),
    };
  },
};

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
