import { relatedConversations } from "@/lib/db/queries/conversations";
import { listMessages } from "@/lib/db/queries/messages";
import { conversationOfRun, listRuns } from "@/lib/db/queries/runs";
import { compareRuns, type RunComparison } from "@/lib/trace/compare";
import { loadTrace } from "./trace";
import { applyEvents, callCount, emptyTrace, type RunView } from "@/lib/trace/state";
import { costOf, runTokens, type RunTokens } from "@/lib/trace/timing";
import { config } from "@/lib/settings/config";

/*
 * What the compare pages (/c/{id}/compare and /s/{token}/compare, `?a={runId}&b={runId}`) show: the two runs
 * aligned, and the runs the viewer may choose from. A run's id names its conversation, so either run may come from
 * any conversation the viewer can read: their own, and on a share page the shared one.
 */

interface ConversationSummary {
  id: string;
  title: string;
  profile: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface CompareScope {
  /** The identity looking, if any: their own conversations' runs can be compared too. */
  viewer: string | undefined;
  /** The conversation the page belongs to, which the viewer may read (owned, or shared with them). */
  home: ConversationSummary;
  /** Its page: /c/{id} or /s/{token}. */
  homePath: string;
}

export interface RunChoice {
  runId: string;
  /** "Run 2: the user's message" */
  label: string;
}

/** The runs of one conversation, as the pickers group them. */
export interface ChoiceGroup {
  label: string;
  runs: RunChoice[];
}

export interface ComparedRun {
  choice: RunChoice;
  conversationLabel: string;
  /** Where the run's cards are: its steps link to them (#e{eventId}). */
  pagePath: string;
  view: RunView;
  figures: RunFigures;
}

/** What the run's heading sums up, beside its status. */
export interface RunFigures {
  steps: number;
  calls: number;
  /** From its start to its end; absent while it runs. */
  durationMs?: number;
  tokens: RunTokens;
  /** In US dollars, when its model has a price. */
  costUsd?: number;
}

function figuresOf(view: RunView): RunFigures {
  const tokens = runTokens(view);
  return {
    steps: view.steps.length,
    calls: callCount(view),
    ...(view.endedAt !== undefined && { durationMs: view.endedAt - view.startedAt }),
    tokens,
    costUsd: costOf(tokens, view.model === undefined ? undefined : config.modelPrices[view.model]),
  };
}

export interface ComparisonPage {
  groups: ChoiceGroup[];
  left: ComparedRun;
  /** Absent when there is no other run to compare with. */
  right?: ComparedRun;
  comparison?: RunComparison;
}

interface Source {
  conversation: ConversationSummary;
  pagePath: string;
  label: string;
}

/** The runs a page's query names: `a` and `b`, the first of each when repeated. */
export function runQuery(query: Record<string, string | string[] | undefined>): { a?: string; b?: string } {
  const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) || undefined;
  return { a: first(query.a), b: first(query.b) };
}

/** The page's data, or null when a run asked for is not one the viewer can read (the page is then 404). */
export async function comparisonPage(
  scope: CompareScope,
  query: { a?: string; b?: string },
): Promise<ComparisonPage | null> {
  const sources: Source[] = [{ conversation: scope.home, pagePath: scope.homePath, label: "This conversation" }];
  if (scope.viewer) {
    let forks = 0;
    for (const related of await relatedConversations(scope.home.id, scope.viewer)) {
      const label =
        related.forkedFromId === scope.home.id
          ? `Your fork ${++forks}: ${related.title}`
          : `Forked from: ${related.title}`;
      sources.push({ conversation: related, pagePath: `/c/${related.id}`, label });
    }
  }
  const groups = await Promise.all(sources.map(choicesOf));
  const find = (runId: string) => groups.findIndex((group) => group.runs.some((run) => run.runId === runId));

  for (const runId of [query.a, query.b]) {
    if (runId === undefined || find(runId) !== -1) continue;
    // Any other run of the viewer's own; nobody else's, whether or not it exists.
    const conversation = await conversationOfRun(runId);
    if (!conversation || !scope.viewer || conversation.ownerId !== scope.viewer) return null;
    const source = {
      conversation,
      pagePath: `/c/${conversation.id}`,
      label: `Your conversation: ${conversation.title}`,
    };
    sources.push(source);
    groups.push(await choicesOf(source));
  }

  const all = groups.flatMap((group, index) => group.runs.map((run) => ({ run, index })));
  const leftId = query.a ?? groups[0].runs.at(-1)?.runId;
  if (leftId === undefined) return null;
  // By default the first run of another conversation (a fork, its source), else another run of this one.
  const rightId =
    query.b ??
    (all.find(({ run, index }) => index > 0 && run.runId !== leftId) ?? all.find(({ run }) => run.runId !== leftId))
      ?.run.runId;

  const traces = new Map<number, RunView[]>();
  const load = async (runId: string): Promise<ComparedRun | undefined> => {
    const index = find(runId);
    if (index === -1) return undefined;
    const source = sources[index];
    if (!traces.has(index))
      traces.set(index, applyEvents(emptyTrace, (await loadTrace(source.conversation)).events).runs);
    const view = traces.get(index)!.find((run) => run.runId === runId);
    const choice = groups[index].runs.find((run) => run.runId === runId)!;
    return (
      view && { choice, conversationLabel: source.label, pagePath: source.pagePath, view, figures: figuresOf(view) }
    );
  };
  const left = await load(leftId);
  const right = rightId === undefined ? undefined : await load(rightId);
  if (!left || (rightId !== undefined && !right)) return null;
  return { groups, left, right, comparison: right && compareRuns(left.view, right.view) };
}

/** Longest excerpt of a run's message in a picker. */
const EXCERPT_CHARS = 60;

async function choicesOf({ conversation, label }: Source): Promise<ChoiceGroup> {
  const [runs, messages] = await Promise.all([listRuns(conversation.id), listMessages(conversation.id)]);
  return {
    label,
    runs: runs.map((run, index) => {
      const said = messages.find((message) => message.runId === run.id && message.role === "user")?.content ?? "";
      const excerpt = said.replace(/\s+/g, " ").trim();
      const shown = excerpt.length > EXCERPT_CHARS ? `${excerpt.slice(0, EXCERPT_CHARS)}…` : excerpt;
      return { runId: run.id, label: `Run ${index + 1}${shown ? `: ${shown}` : ""}` };
    }),
  };
}
