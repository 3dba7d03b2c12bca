"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { api, problemText, type GenerationRequest, type Tool } from "@/lib/api/client";
import type { GenerationEvent, WrittenTool } from "@/lib/contract/generation";

export type AttemptFailure = Extract<GenerationEvent, { type: "attempt_failed" }>;

/** One attempt as it streams: started, then the tool the model wrote, then why it failed (unless it passed). */
export interface AttemptView {
  attempt: number;
  of: number;
  tool?: WrittenTool;
  failure?: AttemptFailure;
}

/** `saved`: the tool was made, but tools that use it now fail their examples, so the form stays to say so. */
export type GenerationPhase = "idle" | "running" | "cancelled" | "created" | "saved";

function fold(attempts: AttemptView[], event: GenerationEvent): AttemptView[] {
  if (event.type === "attempt_started") return [...attempts, { attempt: event.attempt, of: event.of }];
  if (event.type === "attempt_written" || event.type === "attempt_failed") {
    const change = event.type === "attempt_written" ? { tool: event.tool } : { failure: event };
    return attempts.map((view) => (view.attempt === event.attempt ? { ...view, ...change } : view));
  }
  return attempts;
}

/**
 * Writing a tool from a description (POST /api/tools/generate): each attempt as it streams, then the new tool's page,
 * or the reason none was made. Cancelling, or leaving, aborts the request, which stops the model and the sandbox.
 */
export function useToolGeneration() {
  const router = useRouter();
  const [attempts, setAttempts] = useState<AttemptView[]>([]);
  const [phase, setPhase] = useState<GenerationPhase>("idle");
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState<Tool | null>(null);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = async (request: GenerationRequest) => {
    const abort = new AbortController();
    controller.current = abort;
    setAttempts([]);
    setProblem(null);
    setSaved(null);
    setPhase("running");
    try {
      for await (const event of api.generateTool(request, abort.signal)) {
        if (event.type === "tool_created") {
          // A new version that breaks the tools using it: opening its page at once would hide that.
          if (event.tool.dependents?.some((dependent) => !dependent.passed)) {
            setSaved(event.tool);
            setPhase("saved");
            return;
          }
          setPhase("created");
          router.push(`/tools/${event.tool.id}`);
          return;
        }
        if (event.type === "generation_failed") throw new Error(event.body.error.message);
        setAttempts((list) => fold(list, event));
      }
      throw new Error("The connection closed before the tool was written. Try again.");
    } catch (error) {
      if (!abort.signal.aborted) setProblem(problemText(error));
      setPhase(abort.signal.aborted ? "cancelled" : "idle");
    }
  };

  const cancel = () => controller.current?.abort();

  return { attempts, phase, problem, saved, start, cancel };
}
