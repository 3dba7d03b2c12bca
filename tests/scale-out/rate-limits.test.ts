// A profile's rate limit of a tool holds for all the instances together: the calls are counted in the database, so
// two instances allow what one does. (The `postgresql` project runs this file; its instances come from
// tests/support/instances.ts, where the `limited` profile allows three calculations a minute.)
import { describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scaleOut } from "../support/instances";

const { model, two } = scaleOut();

/** A run on `client` whose model calculates twice in one step; the calls' results. */
async function calculateTwice(client: Api, prompt: string) {
  model.script(prompt, [
    {
      toolCalls: [
        { name: "calculate", args: { expression: "1 + 1" } },
        { name: "calculate", args: { expression: "2 + 2" } },
      ],
    },
    { text: "Done." },
  ]);
  const { id } = await client.createConversation("limited");
  return ofType(await client.run(id, prompt), "tool_result");
}

describe("a profile's rate limit on two instances", () => {
  it("allows three calls a minute for one person across both instances, not three on each", async () => {
    const onAResults = await calculateTwice(two.onA, "Calculate twice on A.");
    expect(onAResults.map((result) => result.ok)).toEqual([true, true]);
    const onBResults = await calculateTwice(two.onB, "Calculate twice on B.");
    expect(onBResults.filter((result) => result.ok)).toHaveLength(1);
    const [refused] = onBResults.filter((result) => !result.ok);
    expect(refused.error).toMatch(/calculate is rate-limited in the "limited" profile; try again in \d+ s/);
    expect(Number(/in (\d+) s/.exec(String(refused.error))![1])).toBeGreaterThan(0);

    const audit = await (await two.onA.fetch("/api/audit?tool=calculate")).json();
    expect(audit.entries.map((entry: { decision: string }) => entry.decision).sort()).toEqual([
      "allowed",
      "allowed",
      "allowed",
      "rate_limited",
    ]);
  });

  it("counts each person apart", async () => {
    const other = new Api(two.b.url);
    const results = await calculateTwice(other, "Calculate twice as someone else.");
    expect(results.map((result) => result.ok)).toEqual([true, true]);
  });
});
