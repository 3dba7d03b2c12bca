import type { TraceEvent } from "@/lib/trace/state";

/** Read a text/event-stream response and hand each event to `onEvent`; resolves when the stream ends. */
export async function readEventStream(response: Response, onEvent: (event: TraceEvent) => void, signal?: AbortSignal): Promise<void> {
  if (!response.ok || !response.body) throw new Error(await errorMessage(response));
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  signal?.addEventListener("abort", cancel, { once: true });
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      const blocks = buffer.split("\n\n");
      buffer = blocks.pop()!;
      for (const block of blocks) {
        let id = 0;
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("id:")) id = Number(line.slice(3).trim());
          else if (line.startsWith("data:")) data += line.slice(5).trimStart();
        }
        if (data) onEvent({ ...JSON.parse(data), id });
      }
    }
  } finally {
    signal?.removeEventListener("abort", cancel);
  }
}

export async function errorMessage(response: Response): Promise<string> {
  try {
    const body = await response.json();
    return body?.error?.message ?? `The server answered ${response.status}.`;
  } catch {
    return `The server answered ${response.status}.`;
  }
}

export type FollowState = "live" | "reconnecting" | "done";

/**
 * Follow a conversation's events from `after`: everything stored, then the live run until it ends. A dropped
 * connection reconnects with the last id seen, so nothing is missed or shown twice.
 */
export function followEvents(
  url: string,
  after: number,
  onEvent: (event: TraceEvent) => void,
  onState: (state: FollowState) => void = () => {},
): () => void {
  const controller = new AbortController();
  let lastId = after;
  const track = (event: TraceEvent) => {
    lastId = Math.max(lastId, event.id);
    onEvent(event);
  };

  void (async () => {
    for (let attempt = 0; !controller.signal.aborted; attempt++) {
      try {
        const response = await fetch(`${url}?after=${lastId}`, { signal: controller.signal, cache: "no-store" });
        if (response.status >= 400 && response.status < 500) break;
        onState("live");
        await readEventStream(response, track, controller.signal);
        // A normal end: the run finished, or there was none to follow.
        break;
      } catch {
        if (controller.signal.aborted) return;
        onState("reconnecting");
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** attempt, 5000)));
      }
    }
    if (!controller.signal.aborted) onState("done");
  })();
  return () => controller.abort();
}
