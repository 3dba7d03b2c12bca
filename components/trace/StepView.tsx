import { Brain } from "lucide-react";
import { memo } from "react";
import type { Annotation } from "@/lib/contract/events";
import type { RunView, StepView as Step, ToolCallView } from "@/lib/trace/state";
import { Markdown } from "@/components/ui/Markdown";
import { LazyMount } from "@/components/ui/LazyMount";
import { ToolCallCard } from "./ToolCallCard";
import { CardActions, cardAnchor } from "./CardActions";
import { CardAnnotations } from "./Annotations";
import { useCardOpened, useFindCard } from "./findStore";
import { Marked } from "./Marked";

/** A tool call card's usual height, for the placeholder of a card not built yet. */
const CARD_HEIGHT = 230;

/** `eagerFrom`: calls from this index on are built at once, earlier ones when scrolled near. */
export const StepView = memo(function StepView({
  step,
  annotations,
  live,
  eagerFrom,
}: {
  step: Step;
  /** The run's annotations, by the event they name. */
  annotations: RunView["annotations"];
  live: boolean;
  eagerFrom: number;
}) {
  const card = useFindCard(step.eventId);
  const opened = useCardOpened(step.eventId);
  const callsOnly = card.state === "calls-only";
  return (
    <li
      id={cardAnchor(step.eventId)}
      className={`relative rounded-lg pl-6 ${card.className}`}
      data-testid="trace-step"
      {...card.attributes}
    >
      <span
        aria-hidden
        className="absolute left-0 top-1 grid size-4 place-items-center rounded-full border-2 border-zinc-300 bg-white text-[9px] font-bold text-zinc-500 dark:border-zinc-600 dark:bg-zinc-900"
      />
      <div className="mb-2 flex items-baseline gap-2">
        <h4 className="text-xs font-semibold uppercase tracking-wide text-zinc-600 dark:text-zinc-300">
          Step {step.step}
        </h4>
        {step.finishReason && <span className="text-[11px] text-zinc-600 dark:text-zinc-400">{step.finishReason}</span>}
        {step.usage?.outputTokens !== undefined && (
          <span className="text-[11px] text-zinc-600 dark:text-zinc-400">
            {step.usage.inputTokens ?? "?"} → {step.usage.outputTokens} tokens
          </span>
        )}
        <span className="ml-auto">
          <CardActions eventId={step.eventId} label={`step ${step.step}`} />
        </span>
      </div>
      <div className="mb-2">
        <CardAnnotations eventId={step.eventId} annotations={annotations[step.eventId]} label={`step ${step.step}`} />
      </div>
      {step.reasoning && (
        <details
          className="group mb-2 rounded-lg bg-violet-50 px-3 py-2 dark:bg-violet-950/30"
          open={live || opened || card.state === "match"}
          hidden={callsOnly}
        >
          <summary className="flex cursor-pointer select-none items-center gap-1.5 text-xs font-medium text-violet-800 dark:text-violet-300">
            <Brain className="size-3.5" aria-hidden /> Reasoning
          </summary>
          <p className="mt-1 whitespace-pre-wrap text-[13px] leading-relaxed text-violet-950/90 dark:text-violet-100/80">
            <Marked text={step.reasoning} mark={card.mark} />
          </p>
        </details>
      )}
      {step.text &&
        !callsOnly &&
        (live ? (
          // The chat column renders the streaming text as Markdown already; parsing it twice a frame costs jank.
          <p className="mb-2 whitespace-pre-wrap text-[13px] leading-6 text-zinc-700 dark:text-zinc-300">{step.text}</p>
        ) : (
          <div className="mb-2 text-[13px] [&>div]:text-[13px] [&>div]:leading-6 [&>div]:text-zinc-700 dark:[&>div]:text-zinc-300">
            <Markdown text={step.text} />
          </div>
        ))}
      {step.calls.length > 0 && (
        <ul className="space-y-2">
          {step.calls.map((call, index) => (
            <CallItem
              key={call.callId}
              call={call}
              annotations={annotations[call.eventId]}
              eager={index >= eagerFrom}
            />
          ))}
        </ul>
      )}
    </li>
  );
});

/** A call's place in its step: hidden, ringed or highlighted by what the panel finds, and built at once as a target. */
function CallItem({ call, annotations, eager }: { call: ToolCallView; annotations?: Annotation[]; eager: boolean }) {
  const card = useFindCard(call.eventId);
  return (
    <li className={`rounded-xl ${card.className}`} {...card.attributes}>
      <LazyMount eager={eager || card.target} estimatedHeight={CARD_HEIGHT}>
        <ToolCallCard call={call} annotations={annotations} />
      </LazyMount>
    </li>
  );
}
