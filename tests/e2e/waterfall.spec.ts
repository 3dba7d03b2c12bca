import AxeBuilder from "@axe-core/playwright";
import type { Locator } from "@playwright/test";
import { formatMs } from "@/lib/trace/timing";
import { scriptedApp, type AppServer } from "../support/app-server";
import { expect, sendMessage, snapshot, test } from "./fixtures";

/** run_code that keeps its sandbox thread busy for `ms`, then answers, or throws. */
const busy = (ms: number, then: string) => ({
  code: `const end = Date.now() + ${ms};\nwhile (Date.now() < end) {}\n${then}`,
});

interface Bar {
  kind: string;
  label: string;
  start: number;
  end: number;
  failed: boolean;
}

async function barsOf(timeline: Locator): Promise<Bar[]> {
  return timeline.getByTestId("waterfall-row").evaluateAll((rows) =>
    rows.map((row) => {
      const data = (row as HTMLElement).dataset;
      return {
        kind: data.kind!,
        label: row.querySelector("a")!.textContent!,
        start: Number(data.start),
        end: Number(data.end),
        failed: data.failed === "true",
      };
    }),
  );
}

// Its own server, for the price table: the scripted model answers each step with 10 tokens in and 5 out.
let app: AppServer;
test.beforeAll(async ({ workerServers }) => {
  app = scriptedApp(workerServers.model.url, {
    TOOLSMITH_MODEL_PRICES: JSON.stringify({ "scripted-model": { input: 2, output: 8 } }),
  });
  await app.start();
});
test.afterAll(async () => app?.stop());

test("the waterfall of a run with parallel tool calls shows overlapping bars and the time split", async ({
  page,
  servers,
}) => {
  const prompt = "Run three snippets side by side.";
  servers.model.script(prompt, [
    {
      text: "Running them together.",
      toolCalls: [
        { name: "run_code", args: busy(700, '"slow"') },
        { name: "run_code", args: busy(300, '"quick"') },
        { name: "run_code", args: busy(500, 'throw new Error("broken on purpose")') },
      ],
    },
    { text: "Two answered, one failed." },
  ]);
  await page.goto(`${app.url}/`);
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  const panel = page.getByRole("complementary", { name: "Reasoning panel" });
  const toggle = panel.getByRole("button", { name: /^Timeline/ });
  // Closed, it sums the run up: 2 steps of 10 tokens in and 5 out, at $2 and $8 per million.
  await expect(toggle).toHaveAttribute("aria-expanded", "false");
  await expect(toggle).toContainText("20 → 10 tokens · $0.00012");
  // Keyboard alone opens it.
  await toggle.focus();
  await page.keyboard.press("Enter");
  await expect(toggle).toHaveAttribute("aria-expanded", "true");
  const timeline = panel.getByRole("region", { name: "Run 1 timeline" });
  await expect(timeline).toBeVisible();

  const bars = await barsOf(timeline);
  expect(bars.map(({ kind, label, failed }) => [kind, label, failed])).toEqual([
    ["model", "Step 1 · model", false],
    ["tool", "run_code", false],
    ["tool", "run_code", false],
    ["tool", "run_code", true],
    ["model", "Step 2 · model", false],
  ]);
  const [firstModel, slow, quick, broken, secondModel] = bars;
  // The calls ran side by side: each overlaps the others, and each took about its busy time.
  for (const [a, b] of [
    [slow, quick],
    [slow, broken],
    [quick, broken],
  ])
    expect(Math.max(a.start, b.start), `${JSON.stringify(a)} overlaps ${JSON.stringify(b)}`).toBeLessThan(
      Math.min(a.end, b.end),
    );
  expect(slow.end - slow.start).toBeGreaterThanOrEqual(700);
  expect(quick.end - quick.start).toBeGreaterThanOrEqual(300);
  expect(broken.end - broken.start).toBeGreaterThanOrEqual(500);
  // Model calls come before and after them.
  expect(firstModel.end).toBeLessThanOrEqual(Math.min(slow.start, quick.start, broken.start));
  expect(secondModel.start).toBeGreaterThanOrEqual(Math.max(slow.end, quick.end, broken.end));
  // A failure is said in words and shown with an icon, not by colour alone.
  await expect(timeline.locator('[data-testid="waterfall-row"][data-failed="true"] a')).toHaveAccessibleName(
    /^run_code, tool call, failed, from [\d.]+ m?s to [\d.]+ m?s$/,
  );

  // The split: model, tools (overlapping calls once) and the rest, summing to the run's time.
  const split = timeline.getByTestId("time-split");
  const ms = async (part: string) => Number(await split.locator(`[data-part="${part}"]`).getAttribute("data-ms"));
  const [model, tools, other, total] = [
    await ms("model"),
    await ms("tools"),
    await ms("other"),
    Number(await split.getAttribute("data-total-ms")),
  ];
  expect(model + tools + other).toBe(total);
  expect(model).toBeGreaterThan(0);
  expect(other).toBeGreaterThanOrEqual(0);
  const longest = Math.max(slow.end, quick.end, broken.end) - Math.min(slow.start, quick.start, broken.start);
  expect(tools).toBe(longest);
  expect(tools).toBeLessThan(slow.end - slow.start + (quick.end - quick.start) + (broken.end - broken.start));
  expect(total).toBeGreaterThanOrEqual(secondModel.end);
  for (const [part, label, value] of [
    ["model", "Model", model],
    ["tools", "Tools", tools],
    ["other", "Other", other],
  ] as const)
    await expect(split.locator(`[data-part="${part}"]`)).toHaveText(
      `${label} ${formatMs(value)}${Math.round((100 * value) / total)}%`,
    );
  await expect(timeline.getByTestId("run-cost")).toHaveText("Tokens: 20 in, 10 out · cost $0.00012");

  // WCAG 2.1 AA on the opened timeline, in both schemes.
  for (const colorScheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme });
    const { violations } = await new AxeBuilder({ page })
      .include(`#${await timeline.getAttribute("id")}`)
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"])
      .analyze();
    expect(
      violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target).join(" | ")}`),
      `axe on the timeline (${colorScheme})`,
    ).toEqual([]);
    await snapshot(page, `waterfall-${colorScheme}`);
  }

  // A row leads to its card.
  await timeline.getByRole("link", { name: /^run_code, tool call, failed/ }).click();
  const failedCard = panel.locator('[data-testid="tool-call"][data-status="error"]');
  await expect(page).toHaveURL(new RegExp(`#${await failedCard.getAttribute("id")}$`));
  await expect(failedCard).toBeInViewport();
});
