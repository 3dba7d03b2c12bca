export interface SseMessage {
  id: number;
  event: string;
  data: Record<string, unknown> & { type: string; runId: string };
}

/** Read an SSE response to its end (or until `until` says stop), parsing every message. */
export async function readSse(response: Response, until?: (message: SseMessage) => boolean): Promise<SseMessage[]> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`Expected an event stream, got ${response.status} ${response.headers.get("content-type")}: ${await response.text()}`);
  }
  const messages: SseMessage[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    const blocks = buffer.split("\n\n");
    buffer = blocks.pop()!;
    for (const block of blocks) {
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, "");
      }
      if (!fields.data) continue;
      const message = { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) };
      messages.push(message);
      if (until?.(message)) {
        await reader.cancel();
        return messages;
      }
    }
  }
  return messages;
}

/**
 * Read an SSE response as a client shown it live: `shown` grows as messages arrive, and `end` says whether the
 * stream ended normally or its connection was cut (a server that stopped or died).
 */
export function watchSse(response: Response): { shown: SseMessage[]; end: Promise<"ended" | "cut off"> } {
  const shown: SseMessage[] = [];
  const end = readSse(response, (message) => {
    shown.push(message);
    return false;
  }).then(
    () => "ended" as const,
    () => "cut off" as const,
  );
  return { shown, end };
}

/** Read a stream to its end, noting when it first showed a message that `marks` (NaN when none did). */
export async function readNotingFirst(response: Response, marks: (message: SseMessage) => boolean): Promise<{ events: SseMessage[]; markedAt: number }> {
  let markedAt = Number.NaN;
  const events = await readSse(response, (message) => {
    if (Number.isNaN(markedAt) && marks(message)) markedAt = performance.now();
    return false;
  });
  return { events, markedAt };
}
