import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { notifications, type RunMessage } from "@/lib/db/driver/notifications";
import {
  abandonedRuns,
  claimRun,
  finishRun,
  heldClaims,
  releaseLeases,
  renewLeases,
  takeOverRun,
  type AbandonedRun,
} from "@/lib/db/queries/runs";
import { RunClaims, type LeasedRun } from "@/lib/runs/claims";
import { config } from "@/lib/settings/config";

// The claims' database, as its interface: the runs' rows (lib/db/queries/runs.ts), the instances' messages, the clock.
vi.mock("@/lib/db/driver/client", () => ({ provider: "postgresql", dropIdleConnectionsAfterHang: vi.fn(() => false) }));
vi.mock("@/lib/db/driver/clock", () => ({
  databaseClock: {
    read: vi.fn(async () => {}),
    refresh: vi.fn(),
    now: () => new Date(),
    at: (steadyMs: number) => new Date(Date.now() + steadyMs - performance.now()),
  },
}));
vi.mock("@/lib/db/driver/notifications", () => ({
  notifications: { subscribe: vi.fn(), ready: vi.fn(async () => {}), publish: vi.fn(async () => {}) },
}));
vi.mock("@/lib/db/queries/runs", () => ({
  abandonedRuns: vi.fn(),
  claimRun: vi.fn(),
  finishRun: vi.fn(),
  heldClaims: vi.fn(),
  releaseLeases: vi.fn(),
  renewLeases: vi.fn(),
  takeOverRun: vi.fn(),
}));

const TICK_MS = Math.min(1_000, config.leaseMs / 5);

let runs = 0;
/** A run as the claims see it: each of its methods records its calls. */
class FakeRun implements LeasedRun {
  readonly id = `run-${++runs}`;
  readonly claim = `claim-of-${this.id}`;
  /** Storing its end: it goes on when its lease is lost, and finishes under its claim. */
  finishing = false;
  done: Promise<void> = Promise.resolve();
  cancel = vi.fn();
  abandon = vi.fn((_why: string) => !this.finishing);
  takenOver = vi.fn();
  suspend = vi.fn(async () => {});
  resolveApproval = vi.fn(() => true);
  acceptReview = vi.fn(() => true);

  constructor(readonly conversationId: string) {}
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/** What another instance says to this one (a Stop, an approval, leases given up). */
function tell(message: RunMessage) {
  const [, listener] = vi.mocked(notifications.subscribe).mock.calls.find(([topic]) => topic === "runs")!;
  listener(JSON.stringify(message));
}

let claims: RunClaims<FakeRun>;
const takeOver = vi.fn(async (_run: AbandonedRun, _leasedAt: number, _claim: string) => {});

beforeEach(() => {
  vi.clearAllMocks();
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date", "performance"] });
  vi.spyOn(console, "error").mockImplementation(() => {});
  vi.mocked(claimRun).mockResolvedValue(true);
  vi.mocked(finishRun).mockResolvedValue(true);
  vi.mocked(heldClaims).mockResolvedValue(new Set());
  vi.mocked(releaseLeases).mockResolvedValue();
  // Every lease renewed, by default.
  vi.mocked(renewLeases).mockImplementation(async (_instance, runIds) => ({ held: runIds, cancelRequested: [] }));
  vi.mocked(takeOverRun).mockResolvedValue(true);
  vi.mocked(abandonedRuns).mockResolvedValue([]);
  claims = new RunClaims<FakeRun>();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("RunClaims: which run holds each conversation", () => {
  it("claims a conversation for a run: leased to this instance in the database, and the run is its holder", async () => {
    const run = new FakeRun("conversation-1");
    expect(await claims.claim(run, "gpt-test")).toBe(true);
    expect(claims.holder("conversation-1")).toBe(run);
    expect(claims.holder("conversation-2")).toBeUndefined();
    expect(claimRun).toHaveBeenCalledExactlyOnceWith({
      id: run.id,
      conversationId: "conversation-1",
      model: "gpt-test",
      instanceId: claims.instanceId,
      claim: run.claim,
      leaseUntil: new Date(Date.now() + config.leaseMs),
    });
  });

  it("refuses a second run of a conversation held here, without asking the database", async () => {
    const first = new FakeRun("conversation-1");
    await claims.claim(first, "m");
    expect(await claims.claim(new FakeRun("conversation-1"), "m")).toBe(false);
    expect(claimRun).toHaveBeenCalledTimes(1);
    expect(claims.holder("conversation-1")).toBe(first);
    // Another conversation is free.
    expect(await claims.claim(new FakeRun("conversation-2"), "m")).toBe(true);
  });

  it("refuses a run of a conversation that a run on another instance holds", async () => {
    vi.mocked(claimRun).mockResolvedValue(false);
    expect(await claims.claim(new FakeRun("conversation-1"), "m")).toBe(false);
    expect(claims.holder("conversation-1")).toBeUndefined();
  });

  it("frees the conversation when its run releases it, and only then", async () => {
    const first = new FakeRun("conversation-1");
    const second = new FakeRun("conversation-1");
    await claims.claim(first, "m");
    claims.release(second);
    expect(claims.holder("conversation-1")).toBe(first);
    claims.release(first);
    expect(claims.holder("conversation-1")).toBeUndefined();
    expect(await claims.claim(second, "m")).toBe(true);
    expect(claims.holder("conversation-1")).toBe(second);
  });

  describe("the heartbeat", () => {
    it("renews the leases of the runs held here, which keep going as long as it does", async () => {
      const run = new FakeRun("conversation-1");
      await claims.claim(run, "m");
      await claims.start(takeOver);
      await vi.advanceTimersByTimeAsync(TICK_MS);
      expect(renewLeases).toHaveBeenCalledWith(claims.instanceId, [run.id], new Date(Date.now() + config.leaseMs));
      await vi.advanceTimersByTimeAsync(config.leaseMs * 3);
      expect(vi.mocked(renewLeases).mock.calls.length).toBeGreaterThanOrEqual(30);
      expect(run.abandon).not.toHaveBeenCalled();
      expect(run.takenOver).not.toHaveBeenCalled();
      expect(claims.holder("conversation-1")).toBe(run);
    });

    it("stops a run here before its lease runs out when the lease cannot be renewed (fencing)", async () => {
      const run = new FakeRun("conversation-1");
      await claims.claim(run, "m");
      await claims.start(takeOver);
      // Renewed for five seconds, then the database stops answering.
      await vi.advanceTimersByTimeAsync(5_000);
      const lastRenewed = Date.now();
      vi.mocked(renewLeases).mockRejectedValue(new Error("connection refused"));
      await vi.advanceTimersByTimeAsync(TICK_MS);
      const leaseEnds = lastRenewed + config.leaseMs;

      // Some heartbeats failing in a row do not stop it; its lease is good for a while yet.
      await vi.advanceTimersByTimeAsync(config.leaseMs - 3 * TICK_MS - TICK_MS);
      expect(run.abandon).not.toHaveBeenCalled();
      expect(claims.holder("conversation-1")).toBe(run);

      // Stopped before the lease runs out, when another instance may take the run over.
      await vi.advanceTimersByTimeAsync(leaseEnds - Date.now() - 1);
      expect(run.abandon).toHaveBeenCalledExactlyOnceWith("its lease could not be renewed");
      expect(claims.holder("conversation-1")).toBeUndefined();
    });

    it("hands a Stop asked for on another instance to the run", async () => {
      const run = new FakeRun("conversation-1");
      await claims.claim(run, "m");
      await claims.start(takeOver);
      vi.mocked(renewLeases).mockResolvedValue({ held: [run.id], cancelRequested: [run.id] });
      await vi.advanceTimersByTimeAsync(TICK_MS);
      expect(run.cancel).toHaveBeenCalled();
      expect(claims.holder("conversation-1")).toBe(run);
    });

    it("stops a run taken over by another instance at once, even while it finishes", async () => {
      const run = new FakeRun("conversation-1");
      run.finishing = true;
      await claims.claim(run, "m");
      await claims.start(takeOver);
      // The lease is not held here any more, and the run's row has another claim.
      vi.mocked(renewLeases).mockResolvedValue({ held: [], cancelRequested: [] });
      vi.mocked(heldClaims).mockResolvedValue(new Set(["the-other-instance's-claim"]));
      await vi.advanceTimersByTimeAsync(TICK_MS);
      expect(heldClaims).toHaveBeenCalledWith([run.claim]);
      expect(run.takenOver).toHaveBeenCalledOnce();
      expect(claims.holder("conversation-1")).toBeUndefined();
    });

    it("lets a run that stored its end under its own claim finish here", async () => {
      const run = new FakeRun("conversation-1");
      run.finishing = true;
      await claims.claim(run, "m");
      await claims.start(takeOver);
      vi.mocked(renewLeases).mockResolvedValue({ held: [], cancelRequested: [] });
      vi.mocked(heldClaims).mockResolvedValue(new Set([run.claim]));
      await vi.advanceTimersByTimeAsync(TICK_MS);
      expect(run.takenOver).not.toHaveBeenCalled();
      expect(run.abandon).toHaveBeenCalled();
      // It keeps its conversation here until it has stored its end and released it.
      expect(claims.holder("conversation-1")).toBe(run);
    });

    it("abandons a run whose lease is lost and which is not finishing", async () => {
      const run = new FakeRun("conversation-1");
      await claims.claim(run, "m");
      await claims.start(takeOver);
      vi.mocked(renewLeases).mockResolvedValue({ held: [], cancelRequested: [] });
      // The database cannot say whether it was taken over: it is abandoned all the same.
      vi.mocked(heldClaims).mockRejectedValue(new Error("timeout"));
      await vi.advanceTimersByTimeAsync(TICK_MS);
      expect(run.abandon).toHaveBeenCalledExactlyOnceWith("its lease is no longer held here");
      expect(claims.holder("conversation-1")).toBeUndefined();
    });
  });

  it("hands Stop and approvals sent by other instances to the run they are for", async () => {
    const run = new FakeRun("conversation-1");
    await claims.claim(run, "m");
    await claims.start(takeOver);
    tell({ kind: "cancel", runId: run.id });
    expect(run.cancel).toHaveBeenCalledOnce();
    tell({ kind: "approval", runId: run.id, approvalId: "approval-1", approved: true });
    expect(run.resolveApproval).toHaveBeenCalledExactlyOnceWith("approval-1", true);
    const review = { type: "annotation_deleted", annotationId: "a-1" } as const;
    tell({ kind: "review", runId: run.id, event: review });
    expect(run.acceptReview).toHaveBeenCalledExactlyOnceWith(review);
    // A run executed elsewhere is not this instance's business.
    tell({ kind: "cancel", runId: "run-elsewhere" });
    expect(run.cancel).toHaveBeenCalledOnce();
  });

  describe("taking runs over", () => {
    const abandoned = { id: "dead-run", leaseUntil: new Date(0) } as AbandonedRun;

    it("takes over, under a new claim, the runs whose instance died, and resumes each", async () => {
      vi.mocked(abandonedRuns).mockResolvedValue([abandoned]);
      await claims.start(takeOver);
      expect(takeOverRun).toHaveBeenCalledOnce();
      const [taken, instance, claim, leaseUntil] = vi.mocked(takeOverRun).mock.calls[0];
      expect([taken, instance, leaseUntil]).toEqual([
        abandoned,
        claims.instanceId,
        new Date(Date.now() + config.leaseMs),
      ]);
      expect(takeOver).toHaveBeenCalledExactlyOnceWith(abandoned, performance.now(), claim);
    });

    it("leaves a run another instance took first", async () => {
      vi.mocked(abandonedRuns).mockResolvedValue([abandoned]);
      vi.mocked(takeOverRun).mockResolvedValue(false);
      await claims.start(takeOver);
      expect(takeOver).not.toHaveBeenCalled();
    });

    it("takes over at once the runs a stopping instance gave up", async () => {
      await claims.start(takeOver);
      expect(takeOver).not.toHaveBeenCalled();
      vi.mocked(abandonedRuns).mockResolvedValue([abandoned]);
      tell({ kind: "released" });
      await vi.waitFor(() => expect(takeOver).toHaveBeenCalledOnce());
    });
  });

  describe("a hand-over (the instance is stopping)", () => {
    it("suspends the runs held here, gives their leases up once they are stored, and tells the others", async () => {
      const [first, second] = [new FakeRun("conversation-1"), new FakeRun("conversation-2")];
      await claims.claim(first, "m");
      await claims.claim(second, "m");
      await claims.start(takeOver);
      const suspended = deferred();
      first.suspend.mockReturnValue(suspended.promise);

      let handedOver = false;
      const handOver = claims.handOver().then(() => (handedOver = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(first.suspend).toHaveBeenCalledOnce();
      expect(second.suspend).toHaveBeenCalledOnce();
      // The conversations are no longer held here, and no new run is claimed here.
      expect(claims.holder("conversation-1")).toBeUndefined();
      expect(claims.holder("conversation-2")).toBeUndefined();
      expect(await claims.claim(new FakeRun("conversation-3"), "m")).toBe(false);
      expect(claimRun).toHaveBeenCalledTimes(2);
      // A lease is given up once its run has stored what it emitted, not before.
      expect(releaseLeases).toHaveBeenCalledExactlyOnceWith(claims.instanceId, [second.id]);
      expect(handedOver).toBe(false);

      suspended.resolve();
      await handOver;
      expect(releaseLeases).toHaveBeenCalledWith(claims.instanceId, [first.id]);
      expect(notifications.publish).toHaveBeenCalledExactlyOnceWith("runs", JSON.stringify({ kind: "released" }));

      // No heartbeat after it, and what other instances say is not heard.
      const renewals = vi.mocked(renewLeases).mock.calls.length;
      await vi.advanceTimersByTimeAsync(config.leaseMs);
      expect(renewLeases).toHaveBeenCalledTimes(renewals);
      tell({ kind: "cancel", runId: first.id });
      expect(first.cancel).not.toHaveBeenCalled();
      // Nor does it take over runs any more: its own, given up, go to another instance.
      vi.mocked(abandonedRuns).mockResolvedValue([{ id: first.id, leaseUntil: null } as AbandonedRun]);
      tell({ kind: "released" });
      await vi.advanceTimersByTimeAsync(config.leaseMs);
      expect(takeOverRun).not.toHaveBeenCalled();
      expect(takeOver).not.toHaveBeenCalled();
    });

    it("waits for a run that is storing its end, and does not suspend it", async () => {
      const run = new FakeRun("conversation-1");
      run.finishing = true;
      const ended = deferred();
      run.done = ended.promise;
      await claims.claim(run, "m");
      // Finished under its claim: its lease is not held, its row keeps its claim.
      vi.mocked(renewLeases).mockResolvedValue({ held: [], cancelRequested: [] });
      vi.mocked(heldClaims).mockResolvedValue(new Set([run.claim]));

      let handedOver = false;
      const handOver = claims.handOver().then(() => (handedOver = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(run.suspend).not.toHaveBeenCalled();
      expect(handedOver).toBe(false);
      ended.resolve();
      await handOver;
      expect(releaseLeases).not.toHaveBeenCalled();
      expect(notifications.publish).not.toHaveBeenCalled();
    });

    it("ends a run claimed as the hand-over began, before it starts", async () => {
      const claimed = deferred<boolean>();
      vi.mocked(claimRun).mockReturnValue(claimed.promise);
      const run = new FakeRun("conversation-1");
      const claiming = claims.claim(run, "m");
      await claims.handOver();
      claimed.resolve(true);
      expect(await claiming).toBe(false);
      expect(finishRun).toHaveBeenCalledExactlyOnceWith(run.id, "cancelled", 0, run.claim);
      expect(claims.holder("conversation-1")).toBeUndefined();
    });
  });
});
