import { badRequest } from "@/lib/platform/errors";
import { describeFailures } from "@/lib/tools/library/examples";
import { signatureText } from "@/lib/tools/signature";
import type { Annotation, Plan, PlanItem } from "@/lib/contract/events";
import { listApiTokens } from "@/lib/db/queries/api-tokens";
import { listConversations } from "@/lib/db/queries/conversations";
import { listMcpServers } from "@/lib/db/queries/mcp-servers";
import { listOwnedTools, listToolVersions } from "@/lib/db/queries/tools";
import { listFiles } from "@/lib/db/queries/files";
import { readBlob } from "@/lib/files/store";
import { loadTrace, type Trace } from "./trace";
import { answerOf, applyEvents, emptyTrace, planOf, type RunView, type ToolCallView } from "@/lib/trace/state";

export type ExportFormat = "json" | "md";

/** Everything a reader needs to study the conversation elsewhere: messages, events (with their ids) and tools. */
function traceToJson(trace: Trace) {
  const { runs } = applyEvents(emptyTrace, trace.events);
  return {
    format: "toolsmith.conversation.v1",
    exportedAt: new Date().toISOString(),
    conversation: { id: trace.id, title: trace.title, createdAt: trace.createdAt },
    messages: trace.messages,
    runs: trace.runs,
    events: trace.events,
    tools: trace.tools,
    files: trace.files,
    // What reviewers wrote, as it stands (deleted ones gone); the events have its history.
    annotations: runs.flatMap((run) => Object.values(run.annotations).flat()),
    verdicts: runs.flatMap((run) => run.verdicts),
  };
}

/** The conversation as a document that reads well on its own: each message, then each step of the agent's answer. */
function traceToMarkdown(trace: Trace): string {
  const state = applyEvents(emptyTrace, trace.events);
  const runs = new Map(state.runs.map((run) => [run.runId, run]));
  const out: string[] = [
    `# ${trace.title}`,
    "",
    `_Exported from Toolsmith on ${new Date().toISOString().slice(0, 10)}: ${state.runs.length} runs, ${trace.tools.length} tool versions._`,
  ];
  const fileLine = (file: Trace["files"][number]) =>
    `- [${file.name}](${file.url}) (${file.mimeType}, ${file.size} bytes)`;
  for (const message of trace.messages.filter((m) => m.role === "user")) {
    out.push("", "---", "", "## You", "", message.content);
    const attached = trace.files.filter((file) => file.messageId === message.id);
    if (attached.length > 0) out.push("", "Attached:", ...attached.map(fileLine));
    const run = runs.get(message.runId);
    if (run) out.push(...runMarkdown(run));
  }
  if (trace.files.length > 0) out.push("", "---", "", "## Files", "", ...trace.files.map(fileLine));
  return `${out.join("\n")}\n`;
}

function runMarkdown(run: RunView): string[] {
  const out = ["", `## Agent · ${run.status.replace("_", " ")}${run.model ? ` · ${run.model}` : ""}`];
  if (run.plan) out.push(...planMarkdown(run.plan));
  for (const step of run.steps) {
    out.push("", `### Step ${step.step}`);
    out.push(...annotationsMarkdown(run.annotations[step.eventId]));
    if (step.reasoning) out.push("", ...quote(step.reasoning));
    if (step.text) out.push("", step.text);
    for (const call of step.calls)
      out.push(...callMarkdown(call), ...annotationsMarkdown(run.annotations[call.eventId]));
  }
  if (run.error) out.push("", `**Error:** ${run.error.message}`);
  const answer = answerOf(run);
  if (answer && run.status === "completed") out.push("", "### Answer", "", answer);
  if (run.verdicts.length > 0)
    out.push(
      "",
      "### Verdicts",
      "",
      ...run.verdicts.map(
        (verdict) =>
          `- ${verdict.verdict === "up" ? "👍" : "👎"} ${verdict.author.name}${verdict.note ? `: ${verdict.note}` : ""}`,
      ),
    );
  return out;
}

/** A plan-first run's plan as it ended, a checklist: done items ticked, skipped ones struck through with why. */
function planMarkdown(plan: Plan): string[] {
  const line = ({ title, detail, status, note }: PlanItem) => {
    const text = status === "skipped" ? `~~${title}~~ (skipped${note ? `: ${note}` : ""})` : title;
    const tail = status === "in_progress" ? " (in progress)" : status === "done" && note ? ` (${note})` : "";
    return `- [${status === "done" ? "x" : " "}] ${text}${tail}${detail ? ` — ${detail}` : ""}`;
  };
  return ["", "### Plan", "", ...plan.steps.map(line)];
}

/** Reviewers' notes on a step or a call, under it. */
function annotationsMarkdown(annotations: Annotation[] = []): string[] {
  return annotations.flatMap((annotation) => [
    "",
    `💬 **${annotation.label}** (${annotation.author.name})${annotation.note ? `: ${annotation.note}` : ""}`,
  ]);
}

function callMarkdown(call: ToolCallView): string[] {
  const plan = planOf(call);
  if (plan !== undefined) return ["", "📝 **Plan**", "", ...quote(plan)];
  const status = call.status === "ok" ? "ok" : call.status === "error" ? "failed" : "running";
  const out = [
    "",
    `**Tool call \`${call.name}\`** — ${status}${call.durationMs !== undefined ? `, ${call.durationMs} ms` : ""}${call.truncated ? ", output truncated" : ""}`,
    "",
    "Input:",
    fence(JSON.stringify(call.input, null, 2), "json"),
  ];
  if (call.status === "ok")
    out.push(
      "Output:",
      fence(typeof call.output === "string" ? call.output : JSON.stringify(call.output, null, 2), "json"),
    );
  if (call.status === "ok" && call.logs?.length) out.push("Printed:", fence(call.logs.join("\n"), "text"));
  const images = call.images?.length ?? 0;
  if (images) out.push(`🖼 ${images === 1 ? "An image" : `${images} images`} (in the JSON export and the trace).`, "");
  if (call.status === "error") out.push("Error:", fence(call.error ?? "", "text"));
  if (call.registered) {
    const tool = call.registered;
    out.push(
      `🛠 **Registered** \`${signatureText(tool.name, tool.parametersSchema)}\` v${tool.version} — ${tool.description}`,
      "",
      // Absent in logs older than Python: JavaScript.
      fence(tool.code, tool.language ?? "javascript"),
    );
  }
  if (call.rejected?.violations.length) {
    out.push(
      "⛔ **Rejected by the code policy:**",
      "",
      ...call.rejected.violations.map((v) => `- line ${v.line}, column ${v.column}: ${v.message}`),
    );
  }
  if (call.rejected?.failures) {
    out.push("⛔ **Rejected: examples failed:**", "", describeFailures(call.rejected.failures));
  }
  return out;
}

/** A Markdown quote of every line: the agent's own words, set apart from what it did. */
function quote(text: string): string[] {
  return text.split("\n").map((line) => `> ${line}`);
}

/** A fenced block whose fence is longer than any run of backticks inside. */
function fence(text: string, language: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}\n`;
}

export function exportResponse(trace: Trace, format: string | null): Response {
  const name = (
    trace.title
      .replace(/[^\w-]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 60) || "conversation"
  ).toLowerCase();
  if (format === "md") {
    return new Response(traceToMarkdown(trace), {
      headers: {
        "content-type": "text/markdown; charset=utf-8",
        "content-disposition": `attachment; filename="${name}.md"`,
      },
    });
  }
  return Response.json(traceToJson(trace), {
    headers: { "content-disposition": `attachment; filename="${name}.json"` },
  });
}

/** The bytes of files an account export carries; past it, files are listed with their URLs and no content. */
const ACCOUNT_EXPORT_FILE_BYTES = 100 * 1024 * 1024;

/**
 * Everything an identity owns, as one JSON download (its files' bytes as base64, up to ACCOUNT_EXPORT_FILE_BYTES): each conversation as its own export has it, each tool with all
 * its versions, the names of its API tokens (never their secrets), and its MCP servers (their headers by name only).
 * Offered before an account is deleted.
 */
export async function exportEverything(ownerId: string): Promise<Response> {
  const conversations = [];
  let budget = ACCOUNT_EXPORT_FILE_BYTES;
  for (const conversation of await listConversations(ownerId, Number.MAX_SAFE_INTEGER)) {
    const exported = traceToJson(await loadTrace(conversation));
    const stored = new Map((await listFiles(conversation.id)).map((row) => [row.id, row]));
    const files = [];
    for (const file of exported.files) {
      const row = stored.get(file.id);
      const included = row !== undefined && file.size <= budget;
      if (included) budget -= file.size;
      files.push({ ...file, contentBase64: included ? (await readBlob(row)).toString("base64") : null });
    }
    conversations.push({ ...exported, files });
  }
  const tools = [];
  for (const tool of await listOwnedTools(ownerId, {}))
    tools.push({ id: tool.lineageId, name: tool.name, versions: await listToolVersions(tool.lineageId) });
  const everything = {
    format: "toolsmith.account.v1",
    exportedAt: new Date().toISOString(),
    conversations,
    tools,
    apiTokens: await listApiTokens(ownerId),
    mcpServers: (await listMcpServers(ownerId)).map(({ id, name, url, headerNames, bearer, createdAt }) => ({
      id,
      name,
      url,
      headerNames,
      bearer,
      createdAt,
    })),
  };
  return Response.json(everything, {
    headers: { "content-disposition": 'attachment; filename="toolsmith-account.json"' },
  });
}

/** `?format=json` (the default) or `md`. */
export function exportFormat(request: Request): ExportFormat {
  const format = new URL(request.url).searchParams.get("format") ?? "json";
  if (format !== "json" && format !== "md") throw badRequest('format must be "json" or "md".');
  return format;
}
