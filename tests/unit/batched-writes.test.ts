import { describe, expect, it, vi } from "vitest";

const statements = vi.hoisted(() => [] as { text: string; values: unknown[] }[]);
vi.mock("@/lib/db/driver/client", () => ({
  sql: { execute: async (text: string, values: unknown[]) => void statements.push({ text, values }) },
}));
const { BatchedWrites } = await import("@/lib/db/driver/batched-writes");

/** A store that takes `ms` per statement and remembers what it stored. */
function slowStore(ms: number) {
  const stored: number[] = [];
  const store = async (items: number[]) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    stored.push(...items);
  };
  return { stored, store };
}

describe("batched writes", () => {
  it("gathers the writes of a window into one statement", async () => {
    const { stored, store } = slowStore(1);
    const spy = vi.fn(store);
    const writes = new BatchedWrites<number>(spy, { gatherMs: 10 });
    await Promise.all([writes.write(1), writes.write(2), writes.write(3)]);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(stored).toEqual([1, 2, 3]);
  });

  it("settled stores what it gathered at once, and waits for the writes made before it only", async () => {
    const { stored, store } = slowStore(5);
    const writes = new BatchedWrites<number>(store, { gatherMs: 1_000 });
    void writes.write(1);
    void writes.write(2);
    const started = performance.now();
    const settled = writes.settled();
    // Writes keep coming while the reader waits: it must not wait for them too.
    let next = 3;
    const stream = setInterval(() => void writes.write(next++), 1);
    await settled;
    clearInterval(stream);
    expect(stored.slice(0, 2)).toEqual([1, 2]);
    // Not the 1 s gathering window, and not until the stream of writes stops.
    expect(performance.now() - started).toBeLessThan(500);
    await writes.settled();
  });

  it("keeps one queue per table in the process, whichever copy of the module writes to it or stores it", async () => {
    // A route and the server's direct routes (instrumentation-node.ts) each load their own copy of the module.
    const first = await import("@/lib/db/driver/batched-writes");
    vi.resetModules();
    const second = await import("@/lib/db/driver/batched-writes");
    expect(second).not.toBe(first);
    const rows = first.batchedInserts("Example", ["name"], { gatherMs: 60_000 });
    expect(second.batchedInserts("Example", ["name"], { gatherMs: 60_000 })).toBe(rows);
    const written = rows.write(["gathered"]);
    // A stopping server stores what every copy gathered, not only its own copy's (server.mjs's toolsmithStop).
    await second.settleRecordWrites();
    expect(statements).toEqual([{ text: expect.stringContaining('"Example"'), values: ["gathered"] }]);
    await written;
  });

  it("settles writes whose statement failed, item by item, without rejecting", async () => {
    const writes = new BatchedWrites<number>(
      async (items) => {
        if (items.includes(2)) throw new Error("refused");
      },
      { gatherMs: 0 },
    );
    const outcomes = Promise.allSettled([writes.write(1), writes.write(2)]);
    await writes.settled();
    expect((await outcomes).map((outcome) => outcome.status)).toEqual(["fulfilled", "rejected"]);
  });
});
