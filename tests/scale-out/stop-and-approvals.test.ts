// Stop and the answer to an approval reach the run wherever it runs, through the database; and a tool call is on
// record before the tool acts, so that Stop, or an instance taking the run over, knows of it. (The `postgresql`
// project runs this file; its instances come from tests/support/instances.ts.)
import { describe, expect, it } from "vitest";
import { ofType } from "../support/api";
import { slowInserts, sqlClient } from "../support/database";
import { SPIN, scaleOut } from "../support/instances";
import type { ScriptedCall } from "../support/model-server";
import { readSse, watchSse } from "../support/sse";

const { model, databaseUrl, two } = scaleOut();

describe("two instances on one PostgreSQL", () => {
  /** Stop sent on A while the run's write that `slow` holds up is in progress; the events the run's stream showed. */
  async function stopWhileStoring(
    prompt: string,
    calls: ScriptedCall[],
    slow: Omit<Parameters<typeof slowInserts>[1], "conversationId">,
    profile?: string,
  ) {
    model.script(prompt, [{ toolCalls: calls }, { text: "Never." }]);
    const { id } = await two.onA.createConversation(profile);
    const slowWrite = await slowInserts(databaseUrl, { ...slow, conversationId: id });
    try {
      const events = readSse(await two.onA.send(id, prompt));
      await slowWrite.inProgress();
      expect((await two.onA.fetch(`/api/conversations/${id}/cancel`, { method: "POST" })).status).toBe(202);
      const shown = await events;
      expect(shown.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
      return shown;
    } finally {
      await slowWrite.remove();
    }
  }

  it("makes no tool call after Stop, even one the model asked for in the same step as a tool being registered", async () => {
    const shout = {
      name: "shout",
      description: "Upper-case a text.",
      parameters_schema: { type: "object" },
      code: "function run({ text }) { return String(text).toUpperCase(); }",
    };
    // Stop comes while the tool is being stored; the calculation waits for it (registrations change the tool set).
    const shown = await stopWhileStoring(
      "Register a tool, slowly, and calculate in the same step.",
      [
        { name: "register_tool", args: shout },
        { name: "calculate", args: { expression: "6 * 7" } },
      ],
      {
        table: "Tool",
        seconds: 1.5,
      },
    );
    expect(ofType(shown, "tool_call").map(({ name }) => name)).toEqual(["register_tool"]);
  });

  /** The record of a tool call held up, within the live pool's statement timeout (a quarter of the lease), past which the write is taken for lost and sent again. */
  const SLOW_CALL_RECORD = { table: "Event", seconds: 0.4, when: `NEW."type" = 'tool_call'` };

  it("makes no tool call after Stop that came while the call was being stored: none asks for an approval that no one would answer", async () => {
    const shown = await stopWhileStoring(
      "Calculate carefully, while the record of the call is stored slowly and Stop comes.",
      [{ name: "calculate", args: { expression: "6 * 7" } }],
      SLOW_CALL_RECORD,
      "careful",
    );
    expect(ofType(shown, "approval_requested")).toHaveLength(0);
    expect(ofType(shown, "tool_result")).toHaveLength(0);
  });

  it("stores a tool call before the tool acts: an instance that takes the run over knows it may have", async () => {
    const prompt = "Calculate, while the record of the call is stored slowly.";
    model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await two.onA.createConversation();
    const slowRecord = await slowInserts(databaseUrl, { ...SLOW_CALL_RECORD, conversationId: id });
    try {
      const { shown, end } = watchSse(await two.onA.send(id, prompt));
      await slowRecord.inProgress();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(ofType(shown, "tool_call")).toHaveLength(1);
      expect(ofType(shown, "tool_result")).toHaveLength(0);
      expect(await end).toBe("ended");
      expect(ofType(shown, "tool_result")).toMatchObject([{ ok: true, output: 42 }]);
    } finally {
      await slowRecord.remove();
    }
  });

  it("stops a run on A when Stop reaches B, within half a second", async () => {
    const prompt = "Spin on A until stopped.";
    model.script(prompt, [{ toolCalls: [{ name: "run_code", args: SPIN }] }, { text: "Never." }]);
    const { id } = await two.onA.createConversation();
    const onAEvents = readSse(await two.onA.send(id, prompt), (message) => message.data.type === "run_finished");
    await expect
      .poll(
        async () =>
          ofType(await readSse(await two.onB.events(id), (message) => message.data.type === "tool_call"), "tool_call")
            .length,
        { timeout: 10_000 },
      )
      .toBe(1);
    const stopped = performance.now();
    const cancel = await two.onB.fetch(`/api/conversations/${id}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(202);
    const events = await onAEvents;
    expect(performance.now() - stopped).toBeLessThan(500);
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });
  });

  /** A run on A of the profile that asks before calculating, waiting for an answer, as B sees it. */
  async function approvalAskedOnA(prompt: string) {
    model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] }, { text: "42." }]);
    const { id } = await two.onA.createConversation("careful");
    const onAEvents = readSse(await two.onA.send(id, prompt));
    const asked = await readSse(await two.onB.events(id), (message) => message.data.type === "approval_requested");
    return { id, onAEvents, approvalId: String(asked.at(-1)!.data.approvalId) };
  }

  it("takes the answer to an approval on B to the run waiting on A", async () => {
    const { id, onAEvents, approvalId } = await approvalAskedOnA("Calculate on A, carefully.");
    const answer = (approved: boolean) => two.onB.answerApproval(id, approvalId, approved);
    expect((await answer(true)).status).toBe(200);
    const events = await onAEvents;
    expect(ofType(events, "approval_resolved")).toEqual([expect.objectContaining({ approvalId, approved: true })]);
    expect(ofType(events, "tool_result")[0]).toMatchObject({ ok: true, output: 42 });
    // Sent again once the run is over: taken as it was; the other answer is refused.
    expect((await answer(true)).status).toBe(200);
    expect((await answer(false)).status).toBe(409);
  });

  it("gets an approval answered on B to the run on A while A's listening connection reconnects, and says so only once A confirms it", async () => {
    const { id, onAEvents, approvalId } = await approvalAskedOnA("Calculate on A, carefully, while A hears nothing.");
    // Every instance's listening connection is cut: each takes a second to connect again, and misses what is said meanwhile.
    const database = await sqlClient(databaseUrl);
    const [{ cut }] = await database.query<{ cut: string }>(
      `SELECT count(pg_terminate_backend("pid")) AS "cut" FROM pg_stat_activity WHERE "application_name" = 'toolsmith-listener' AND "datname" = current_database()`,
    );
    await database.close();
    // A's and B's at least (an instance of another test may still be connected).
    expect(Number(cut)).toBeGreaterThanOrEqual(2);
    const answered = await two.onB.answerApproval(id, approvalId, true);
    expect(answered.status).toBe(200);
    // Confirmed means stored: the run on A has it.
    expect(
      ofType(
        await readSse(await two.onB.events(id), (message) => message.data.type === "approval_resolved"),
        "approval_resolved",
      ),
    ).toHaveLength(1);
    const events = await onAEvents;
    expect(ofType(events, "tool_result")[0]).toMatchObject({ ok: true, output: 42 });
    expect(events.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
  });

  it("answers 503, asking to send it again, to an approval the instance running the call never confirms", async () => {
    // A run leased to an instance that hears nothing, waiting for an approval.
    const { id } = await two.onA.createConversation("careful");
    const runId = `silent-${id}`;
    const approvalId = "approval-no-one-hears";
    const database = await sqlClient(databaseUrl);
    try {
      await database.query(
        `INSERT INTO "Run" ("id", "conversationId", "status", "model", "steps", "createdAt", "instanceId", "claim", "leaseUntil", "cancelRequested") VALUES (?, ?, 'running', 'scripted', 0, now(), 'deaf', ?, now() + interval '1 hour', false)`,
        runId,
        id,
        runId,
      );
      const request = {
        type: "approval_requested",
        step: 1,
        callId: "call-1",
        approvalId,
        tool: "calculate",
        input: { expression: "1 + 1" },
        runId,
      };
      await database.query(
        `INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") VALUES (?, 1, 1, ?, 'approval_requested', ?, now())`,
        id,
        runId,
        JSON.stringify(request),
      );
      const sentAt = performance.now();
      const answer = await two.onB.answerApproval(id, approvalId, true);
      expect(answer.status).toBe(503);
      expect(answer.headers.get("retry-after")).toBe("1");
      expect((await answer.json()).error.message).toMatch(/did not confirm the answer; send it again/);
      expect(performance.now() - sentAt).toBeGreaterThan(4_000);
      // Once the run was taken over (which ends the step the call was in), the call waits no more: 409 at once.
      const resumed = { type: "run_resumed", runId };
      await database.query(
        `INSERT INTO "Event" ("conversationId", "seq", "lastSeq", "runId", "type", "data", "createdAt") VALUES (?, 2, 2, ?, 'run_resumed', ?, now())`,
        id,
        runId,
        JSON.stringify(resumed),
      );
      expect((await two.onB.answerApproval(id, approvalId, true)).status).toBe(409);
    } finally {
      await database.query(`UPDATE "Run" SET "status" = 'error', "leaseUntil" = NULL WHERE "id" = ?`, runId);
      await database.close();
    }
  });
});
