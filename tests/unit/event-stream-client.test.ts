import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { followEvents, readEventStream, RECONNECT_BACKOFF, type FollowState } from "@/lib/api/event-stream";
import { backoffDelay } from "@/lib/platform/retry";
import type { TraceEvent } from "@/lib/trace/state";

const backoffMs = (failures: number) => backoffDelay(RECONNECT_BACKOFF, failures);

/** A response whose body arrives in exactly these chunks. */
function streamOf(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

async function read(chunks: string[]): Promise<TraceEvent[]> {
  const events: TraceEvent[] = [];
  await readEventStream(streamOf(chunks), (event) => events.push(event));
  return events;
}

describe("readEventStream", () => {
  it("joins multi-line data with newlines, as the SSE spec says", async () => {
    const events = await read([
      'id: 1\nevent: error\ndata: {"type":"error",\ndata: "message":"a\\nb","runId":"r"}\n\n',
    ]);
    expect(events).toEqual([{ id: 1, type: "error", message: "a\nb", runId: "r" }]);
  });

  it("reads CRLF and CR line endings", async () => {
    const events = await read([
      'id: 7\rdata: {"type":"step_started","step":1,"runId":"r"}\r\r',
      'id: 8\r\ndata: {"type":"step_started","step":2,"runId":"r"}\r\n\r\n',
    ]);
    expect(events.map((event) => event.id)).toEqual([7, 8]);
  });

  it("ignores comments and keep-alives, and joins events split across chunks anywhere", async () => {
    const whole = ': keep-alive\n\nid: 3\ndata: {"type":"text_delta","step":1,"delta":"héllo","runId":"r"}\n\n';
    const chunks = whole
      .split("")
      .reduce<string[]>(
        (parts, char, index) => (index % 5 === 0 ? [...parts, char] : [...parts.slice(0, -1), parts.at(-1) + char]),
        [],
      );
    expect(await read(chunks)).toEqual([{ id: 3, type: "text_delta", step: 1, delta: "héllo", runId: "r" }]);
  });

  it("turns an error answer into the server's message", async () => {
    const response = Response.json(
      { error: { code: "not_found", message: "The conversation was not found." } },
      { status: 404 },
    );
    await expect(readEventStream(response, () => {})).rejects.toMatchObject({
      status: 404,
      message: "The conversation was not found.",
    });
  });
});

describe("followEvents", () => {
  let server: http.Server | undefined;
  afterEach(
    () =>
      new Promise<void>((resolve) =>
        server ? (server.closeAllConnections(), server.close(() => resolve())) : resolve(),
      ),
  );

  it("reconnects after the last id seen, and starts its backoff over after a connection that delivered events", async () => {
    const requests: { after: string; at: number }[] = [];
    // 1: an event, then the connection drops; 2: refused; 3: an event, then a drop; 4: the rest, and the end.
    const plan = ["event-then-drop", "refuse", "event-then-drop", "finish"];
    server = http.createServer((req, res) => {
      requests.push({ after: new URL(req.url!, "http://x").searchParams.get("after")!, at: performance.now() });
      const step = plan[requests.length - 1];
      if (step === "refuse") return req.socket.destroy();
      res.writeHead(200, { "content-type": "text/event-stream" });
      const id = requests.length;
      res.write(`id: ${id}\ndata: {"type":"step_started","step":${id},"runId":"r"}\n\n`);
      if (step === "finish") res.end();
      else setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;

    const seen: number[] = [];
    const states: FollowState[] = [];
    let resyncs = 0;
    await new Promise<void>((resolve) => {
      followEvents({
        reconnect: (after, signal) => fetch(`${url}?after=${after}`, { signal }),
        lastSeenId: () => seen.at(-1) ?? 0,
        onEvent: (event) => seen.push(event.id),
        onResync: () => resyncs++,
        onState: (state) => (states.push(state), state === "done" && resolve()),
      });
    });
    expect(resyncs).toBe(0);
    expect(seen).toEqual([1, 3, 4]);
    expect(requests.map((request) => request.after)).toEqual(["0", "1", "1", "3"]);
    expect(states.at(-1)).toBe("done");
    const gaps = requests.slice(1).map((request, index) => request.at - requests[index].at);
    // after the drop that followed an event: the first step of the backoff; after a refusal: the second
    expect(gaps[1]).toBeGreaterThanOrEqual(backoffMs(2) - 5);
    expect(gaps[2]).toBeLessThan(backoffMs(2));
    expect([1, 2, 3, 10].map(backoffMs)).toEqual([250, 500, 1000, 5000]);
  });

  it("stops on a 4xx, such as a revoked share link", async () => {
    server = http.createServer((_req, res) =>
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"gone"}}'),
    );
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    let calls = 0;
    const refusals: unknown[] = [];
    await new Promise<void>((resolve) =>
      followEvents({
        reconnect: (_after, signal) => (calls++, fetch(url, { signal })),
        lastSeenId: () => 0,
        onEvent: () => {},
        onResync: () => {},
        onState: (state) => state === "done" && resolve(),
        onRefused: (error) => refusals.push(error),
      }),
    );
    expect(calls).toBe(1);
    expect(refusals).toEqual([expect.objectContaining({ status: 404, message: "gone" })]);
  });

  it("tries again later, instead of stopping, when the server has too many streams open (429)", async () => {
    let calls = 0;
    server = http.createServer((_req, res) => {
      if (++calls === 1)
        return res
          .writeHead(429, { "content-type": "application/json", "retry-after": "1" })
          .end('{"error":{"message":"Too many event streams"}}');
      res
        .writeHead(200, { "content-type": "text/event-stream" })
        .end(`id: 1\ndata: {"type":"text_delta","step":1,"delta":"a","runId":"r"}\n\n`);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;
    const refusals: unknown[] = [];
    const events: unknown[] = [];
    await new Promise<void>((resolve) =>
      followEvents({
        reconnect: (_after, signal) => fetch(url, { signal }),
        lastSeenId: () => 0,
        onEvent: (event) => events.push(event),
        onResync: () => {},
        onState: (state) => state === "done" && resolve(),
        onRefused: (error) => refusals.push(error),
      }),
    );
    expect(refusals).toEqual([]);
    expect(calls).toBe(2);
    expect(events).toHaveLength(1);
  });

  it("reads the log again from its first event, at once, when the stream ends with resync", async () => {
    // 1: events 1-3 from an instance that lost the run before storing 3, then resync; 2: the stored log (1, 2)
    // and the new instance's 3 and 4, then the end.
    const requests: string[] = [];
    server = http.createServer((req, res) => {
      requests.push(new URL(req.url!, "http://x").searchParams.get("after")!);
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = (id: number, text: string) =>
        `id: ${id}\ndata: {"type":"text_delta","step":1,"delta":"${text}","runId":"r"}\n\n`;
      if (requests.length === 1)
        res.end(`${event(1, "a")}${event(2, "b")}${event(3, "lost")}id: 0\nevent: resync\ndata: {"type":"resync"}\n\n`);
      else res.end(`${event(1, "a")}${event(2, "b")}${event(3, "c")}${event(4, "d")}`);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`;

    let shown: string[] = [];
    let resyncs = 0;
    const started = performance.now();
    await new Promise<void>((resolve) =>
      followEvents({
        reconnect: (after, signal) => fetch(`${url}?after=${after}`, { signal }),
        lastSeenId: () => shown.length,
        onEvent: (event) => shown.push(event.type === "text_delta" ? event.delta : event.type),
        onResync: () => ((shown = []), resyncs++),
        onState: (state) => state === "done" && resolve(),
      }),
    );
    expect(resyncs).toBe(1);
    expect(requests).toEqual(["0", "0"]);
    expect(shown).toEqual(["a", "b", "c", "d"]);
    // no backoff: a resync is not a failure
    expect(performance.now() - started).toBeLessThan(backoffMs(1));
  });
});
