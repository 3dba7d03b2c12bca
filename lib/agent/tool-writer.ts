import { jsonSchema, Output, tool, type ModelMessage, type ToolSet } from "ai";
import { z } from "zod";
import { ToolExample, type AgentEvent } from "@/lib/contract/events";
import type { AttemptProblem, GenerationEvent, WrittenTool } from "@/lib/contract/generation";
import { MAX_EXAMPLES, ToolDefinition } from "@/lib/contract/requests";
import { stepMessages } from "@/lib/agent/history";
import { thinking, type ModelSession } from "@/lib/agent/model";
import { ModelFailure, streamStep, type StepPlan } from "@/lib/agent/model-step";
import { noCalls } from "@/lib/db/queries/executions";
import type { ToolLanguage } from "@/lib/sandbox";
import type { ModelConfig } from "@/lib/settings/config";
import { PYTHON_TOOL_CODE_RULES } from "@/lib/tools/code-rules";
import { toolJson } from "@/lib/tools/library/wire";
import { isReservedName } from "@/lib/tools/names";
import { modelSchema } from "@/lib/tools/schema";
import type { CodeCalls } from "@/lib/tools/types";
import { TOOL_CODE_RULES } from "@/lib/tools/library/register-tool";
import { registerToolVersion, type Registration } from "@/lib/tools/library/versions";

/**
 * Writing a tool from a description, SEAT's flow with a repair loop: the model writes the tool with examples, the
 * tool is checked and its examples run exactly as register_tool's are (lib/tools/library/versions.ts), and a failure
 * goes back to the model to repair, up to the attempts allowed. The outcome is a stored library tool, or nothing.
 */

/** What changes with the language of the tool asked for: its name, the rules of its code, how it refuses bad input. */
const LANGUAGES: Record<ToolLanguage, { name: string; rules: string; badInput: string }> = {
  javascript: { name: "JavaScript", rules: TOOL_CODE_RULES, badInput: "throw an Error" },
  python: { name: "Python", rules: PYTHON_TOOL_CODE_RULES, badInput: "raise a ValueError" },
};

const writerPrompt = ({ name, rules, badInput }: (typeof LANGUAGES)[ToolLanguage]) =>
  `You write tools for Toolsmith: small ${name} functions that agents and scripts call with JSON inputs.
Answer with exactly one tool:
- name: snake_case, saying what the tool does (e.g. celsius_to_fahrenheit).
- description: one or two sentences for a model deciding whether to call it: what it does, its inputs, its output.
- parameters_schema: a JSON Schema object of the inputs ({"type":"object","properties":{...},"required":[...]}), each property with a description.
- code: ${rules} Check the inputs and ${badInput} with a clear message for bad ones.
- examples: two or three {"input": {...}, "expected_output": ...} pairs, an ordinary case and an edge case. Each runs before the tool is accepted: expected_output must be exactly what run(input) returns (numbers match within a relative 1e-9, object key order does not matter).
When told that an attempt failed, fix what the message names (the code, or an example that was wrong) and answer with the whole tool again.`;

/** What the model is told, by the language asked for: it answers with one tool, and repairs it when told why. */
export const TOOL_WRITER_PROMPT: Record<ToolLanguage, string> = {
  javascript: writerPrompt(LANGUAGES.javascript),
  python: writerPrompt(LANGUAGES.python),
};

/** The name of the one tool a model that cannot give JSON-schema output is made to call. */
const WRITE_TOOL = "write_tool";

/**
 * A definition as the model must write it: examples are required here, and the code is in the language the prompt
 * names (one schema for both languages, so that each dialect's answer format is made once).
 */
const WrittenToolAnswer = ToolDefinition.extend({
  code: ToolDefinition.shape.code.describe("The tool's source, in the language the instructions name, defining run."),
  examples: z.array(ToolExample).min(1).max(MAX_EXAMPLES),
});
type WrittenToolAnswer = z.infer<typeof WrittenToolAnswer>;
/** The answer's schema as the model is shown it, references written out; readAnswer checks the answer with zod. */
const answerSchema = jsonSchema<WrittenToolAnswer>(modelSchema(WrittenToolAnswer));

/**
 * How each dialect (TOOLSMITH_MODEL_API) is asked for the definition. OpenAI's Chat Completions and Responses
 * take a JSON schema for the answer (structured output, not strict: parameters_schema and the examples are free-form
 * JSON, which strict mode cannot express). Other servers differ in what response formats they honour, but the
 * agent already needs their tool calling: they are made to call one tool, `write_tool`, whose input is the definition.
 * Made once: the SDK converts each schema to JSON Schema once per object.
 */
const forcedCall = {
  tools: {
    [WRITE_TOOL]: tool({ description: "Submit the tool you wrote.", inputSchema: answerSchema }),
  } as ToolSet,
  toolChoice: { type: "tool", toolName: WRITE_TOOL } as const,
};
const ANSWER_FORMATS = {
  structured: {
    tools: {} as ToolSet,
    output: Output.object({ schema: answerSchema, name: "tool" }),
    providerOptions: { openai: { strictJsonSchema: false } },
  },
  forcedCall,
  // Claude: tool use is its native way to answer with JSON (parameters_schema is an open object, which its structured
  // outputs cannot hold); Anthropic refuses a forced tool choice while thinking, so the writer does not think.
  claude: { ...forcedCall, providerOptions: { anthropic: thinking(0) } },
};
const answerFormat = (api: ModelConfig["api"]) =>
  api === "compatible"
    ? ANSWER_FORMATS.forcedCall
    : api === "anthropic"
      ? ANSWER_FORMATS.claude
      : ANSWER_FORMATS.structured;

export interface GenerationRequest {
  ownerId: string;
  description: string;
  /** The name to give the tool, whatever the model picks. */
  name?: string;
  language: ToolLanguage;
  model: ModelSession;
  api: ModelConfig["api"];
  attempts: number;
  signal: AbortSignal;
  /** Tool calls on the owner's terms: the examples of the tools that use a new version run with them. */
  calls?: CodeCalls;
}

type AttemptFailed = Extract<GenerationEvent, { type: "attempt_failed" }>;

/** Write, check, test and store a tool, attempt by attempt; the last event is tool_created or generation_failed. */
export async function* generateTool(request: GenerationRequest): AsyncGenerator<GenerationEvent> {
  const { model, signal } = request;
  const messages: ModelMessage[] = [{ role: "user", content: userRequest(request) }];
  let failed: AttemptFailed | undefined;
  for (let attempt = 1; attempt <= request.attempts; attempt++) {
    yield { type: "attempt_started", attempt, of: request.attempts };
    let plan: StepPlan;
    try {
      plan = await streamStep({
        ...answerFormat(request.api),
        model: model.model,
        system: TOOL_WRITER_PROMPT[request.language],
        messages,
        step: attempt,
        maxRetries: model.maxRetries,
        idle: model.idle,
        emit: ignoreDeltas,
        signal,
      });
    } catch (error) {
      if (!(error instanceof ModelFailure)) throw error;
      yield { type: "generation_failed", status: 502, body: { error: error.describe() } };
      return;
    }
    failed = yield* tryAnswer(plan, attempt, request);
    if (!failed || signal.aborted) return;
    yield failed;
    messages.push(...repairMessages(plan, attempt, repairRequest(failed.message, request.language)));
  }
  yield {
    type: "generation_failed",
    status: 422,
    body: {
      error: {
        code: `tool_${failed!.problem}`,
        message: `No tool passed its checks in ${request.attempts} attempts. The last one failed: ${failed!.message}`,
      },
      attempts: request.attempts,
      violations: failed!.violations,
      failures: failed!.failures,
    },
  };
}

/** One answer, checked, tested and stored (attempt_written, then tool_created), or why not, to show and repair. */
async function* tryAnswer(
  plan: StepPlan,
  attempt: number,
  request: GenerationRequest,
): AsyncGenerator<GenerationEvent, AttemptFailed | undefined> {
  const failure = (problem: AttemptProblem, message: string, registration?: Registration): AttemptFailed => ({
    type: "attempt_failed",
    attempt,
    problem,
    message,
    ...details(registration),
  });
  const answer = readAnswer(plan);
  if (!answer.ok) return failure("output", answer.message);
  const written = { ...answer.tool, name: request.name ?? answer.tool.name, language: request.language };
  yield { type: "attempt_written", attempt, tool: written };
  if (isReservedName(written.name)) {
    return failure("name", `"${written.name}" is a built-in tool's name; choose another name.`);
  }
  const registration = await register(written, request);
  if (!registration.ok) return failure(registration.problem, registration.message, registration);
  const { row, dependents } = registration;
  yield { type: "tool_created", attempt, tool: { ...toolJson(row, noCalls()), dependents } };
  return undefined;
}

const ignoreDeltas = (_event: AgentEvent) => {};

function userRequest({ description, name }: GenerationRequest): string {
  return name ? `${description}\n\nName the tool ${name}.` : description;
}

// The language again: a model that drifted into another one while repairing is told which to write.
const repairRequest = (message: string, language: ToolLanguage) =>
  `That attempt was not accepted:\n${message}\nAnswer with the whole tool again, fixed, its code in ${LANGUAGES[language].name}.`;

/** Store the tool in the owner's library, through register_tool's own checks and examples. */
function register(tool: WrittenTool, { ownerId, signal, calls }: GenerationRequest): Promise<Registration> {
  return registerToolVersion(
    {
      ownerId,
      conversationId: null,
      runId: null,
      name: tool.name,
      description: tool.description,
      parametersSchema: tool.parameters_schema,
      code: tool.code,
      language: tool.language,
      examples: tool.examples,
      uses: tool.uses,
      secrets: tool.secrets,
    },
    signal,
    calls,
  );
}

function details(registration: Registration | undefined) {
  if (registration?.ok === false && registration.problem === "policy") return { violations: registration.violations };
  if (registration?.ok === false && registration.problem === "examples") return { failures: registration.outcomes };
  return {};
}

/** The model's answer as a definition: the call of write_tool, or the JSON text of a structured output. */
function readAnswer(plan: StepPlan): { ok: true; tool: WrittenToolAnswer } | { ok: false; message: string } {
  const call = plan.calls.find((candidate) => candidate.name === WRITE_TOOL);
  if (call?.problem) return { ok: false, message: call.problem };
  const raw = call ? call.input : jsonIn(plan.text);
  if (raw === undefined) {
    return { ok: false, message: "The answer held no tool definition: answer with the tool as one JSON object." };
  }
  const parsed = WrittenToolAnswer.safeParse(raw);
  if (parsed.success) return { ok: true, tool: parsed.data };
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".") || "the answer"}: ${issue.message}`);
  return { ok: false, message: `The tool definition is not valid: ${problems.join("; ")}.` };
}

/** The JSON object in a structured answer; some servers wrap it in a Markdown fence or a sentence. */
function jsonIn(text: string): unknown {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start === -1 || end < start) return undefined;
  try {
    return JSON.parse(text.slice(start, end + 1));
  } catch {
    return undefined;
  }
}

/** The failed attempt and why, as the model reads them next: a tool call and its error, or an answer and a reply. */
function repairMessages(plan: StepPlan, attempt: number, feedback: string): ModelMessage[] {
  const [call] = plan.calls;
  if (!call) {
    return [
      { role: "assistant", content: plan.text || "(no answer)" },
      { role: "user", content: feedback },
    ];
  }
  const step = attempt;
  return stepMessages(
    plan.text,
    [{ type: "tool_call", step, callId: call.callId, name: call.name, input: call.input }],
    [{ type: "tool_result", step, callId: call.callId, name: call.name, ok: false, error: feedback, durationMs: 0 }],
    // A model that always thinks (Claude's adaptive-only ones) needs its signed thinking back before its call.
    plan.reasoning,
  );
}
