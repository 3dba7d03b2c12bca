import { NewToolDefinition } from "@/lib/contract/requests";
import { config } from "@/lib/settings/config";
import { PYTHON_TOOL_CODE_RULES } from "@/lib/tools/code-rules";
import { toolView } from "./wire";
import { isReservedName } from "@/lib/tools/names";
import { conversationOf, defineTool } from "@/lib/tools/define-tool";
import { dependentsReport, registerToolVersion, type Registration } from "./versions";
import type { ToolRejection } from "@/lib/tools/types";

const { timeoutMs, memoryBytes } = config.sandbox;

/** What a refused registration shows in the trace: the policy's violations, or the examples that failed. */
function rejection(
  { name, language, code }: NewToolDefinition,
  registration: Extract<Registration, { ok: false }>,
): ToolRejection | undefined {
  if (registration.problem === "policy") return { name, language, code, violations: registration.violations };
  if (registration.problem === "examples")
    return { name, language, code, violations: [], failures: registration.outcomes };
  return undefined;
}

/** What tool code may do, for the model: register_tool's description and the tool writer's prompt say it. */
export const TOOL_CODE_RULES =
  "JavaScript that defines `function run(inputs)` (may be async) returning a JSON-serialisable value; `inputs` " +
  "matches parameters_schema. It runs in a sandbox: no require/import/process/eval/Function/globalThis/" +
  "constructor/__proto__, no Node APIs; console.log and fetch(url) to public http(s) hosts are available, and " +
  "`await tools.call(name, input)` calls another of your tools (a library or MCP tool, or a built-in this profile " +
  "allows) and returns its output, throwing its error; each name must be a string literal listed in `uses`. " +
  'The conversation\'s files: `await files.list("/")`, `await files.read("/sales.csv")` (text; ' +
  '`{ encoding: "base64" }` for bytes) and `await files.write("/report.md", text)`, which the person can download. ' +
  "Limits per call, inner calls included: " +
  `${timeoutMs} ms, ${memoryBytes / 1024 / 1024} MB of memory.`;

export const registerTool = defineTool({
  name: "register_tool",
  description:
    "Create a new tool when none of the available tools fits the task, in JavaScript or Python.\n" +
    `- In \`code\` (the default language): ${TOOL_CODE_RULES}\n` +
    `- In \`code\` with \`"language": "python"\`, or in \`python_code\`: ${PYTHON_TOOL_CODE_RULES}\n` +
    "For example, JavaScript: `function run({ text }) { return text.split(/\\s+/).filter(Boolean).length; }`; " +
    'Python: `def run(inputs): return len(inputs["text"].split())`.\n' +
    "The tool is callable by its name right after registration and in later turns. Registering an existing name " +
    "makes a new version, in either language. Give two or three examples (an ordinary case and an edge case): each " +
    "runs before the tool is accepted, and a mismatch rejects it, showing the input, the expected and the actual " +
    "output.\n" +
    "Build on tools that exist rather than rewriting what they do: list the tools the code calls in `uses`. When a " +
    "tool others use gets a new version, their examples run again and any that now fail are reported.\n" +
    "API keys: list the names in `secrets` (each must be set by the person in Settings → Secrets first; ask them, " +
    'never for the key in the chat). The code reads `secrets.NAME` (JavaScript) or `secrets["NAME"]` (Python): ' +
    "a placeholder that requests to the secret's hosts carry as the key, in the URL, a header or the body; to " +
    "other hosts they are refused, and a key in a reply comes back as [secret NAME].",
  changesToolset: true,
  inputSchema: NewToolDefinition,
  async execute(definition, context) {
    const { name, language, code, examples } = definition;
    if (isReservedName(name)) return { ok: false, error: `"${name}" is a built-in tool; choose another name.` };

    const registration = await registerToolVersion(
      {
        ownerId: context.ownerId,
        conversationId: conversationOf(context),
        runId: context.runId ?? null,
        name,
        description: definition.description,
        parametersSchema: definition.parameters_schema,
        language,
        code,
        examples,
        uses: definition.uses,
        secrets: definition.secrets,
      },
      context.signal,
      // Its examples may call other tools (tools.call), as the tool will; the run then offers it.
      context.codeCalls,
    );
    if (!registration.ok) {
      return {
        ok: false,
        error: registration.message,
        cancelled: "cancelled" in registration && registration.cancelled,
        rejected: rejection(definition, registration),
      };
    }
    const { row, dependents } = registration;
    const report = dependentsReport(dependents);
    return {
      ok: true,
      output: {
        registered: name,
        version: row.version,
        message: `Tool "${name}" v${row.version} is registered; call it by name.${report && `\n${report}`}`,
        ...(dependents.length > 0 && {
          dependents: dependents.map(({ name: user, passed, failures }) => ({
            name: user,
            passed,
            failed: failures.length,
          })),
        }),
      },
      registered: { ...toolView(row), ...(dependents.length > 0 && { dependents }) },
    };
  },
});
