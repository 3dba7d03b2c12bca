import type { Locator, Page } from "@playwright/test";
import { expect, sendMessage, snapshot, test } from "./fixtures";

const SHOUT = {
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.toUpperCase() + '!'; }",
};

/** Reach `target` with Tab alone, as a keyboard user does; fails after `max` presses. */
async function tabUntilFocused(page: Page, target: Locator, max = 120): Promise<void> {
  for (let presses = 0; presses < max; presses++) {
    if (await target.evaluate((element) => element === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error(`Tab never reached ${target}.`);
}

test("a link holder continues from a step into their own chats, and compares the original's run with their fork's, by keyboard", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "Make a shout tool and shout hi.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "shout", args: { text: "hi" } }] },
    { text: "HI!" },
  ]);
  const other = "Now shout bye instead.";
  // The same path with another word: the tool again (a new version of it in the fork), then bye.
  servers.model.script(other, [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "shout", args: { text: "bye" } }] },
    { text: "BYE!" },
  ]);

  // The owner runs and shares the conversation.
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Share this conversation" });
  await dialog.getByRole("button", { name: "Create link" }).click();
  const url = await dialog.getByTestId("share-url").inputValue();

  // A second identity opens the link and, by keyboard, continues from the step that registered the tool.
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const viewer = await context.newPage();
  await viewer.goto(url);
  await expect(viewer.getByTestId("trace-step")).toHaveCount(3);
  await tabUntilFocused(viewer, viewer.getByRole("button", { name: "Continue from step 1" }));
  await viewer.keyboard.press("Enter");
  await expect(viewer).toHaveURL(/\/c\/[\w-]+$/);
  const forkPath = new URL(viewer.url()).pathname;

  // The new conversation has the steps up to there, its run closed, the tool, and the message that started it.
  await expect(viewer.getByTestId("trace-step")).toHaveCount(1);
  await expect(viewer.getByTestId("tool-registered")).toBeVisible();
  await expect(viewer.getByTestId("trace-run").getByTestId("run-status")).toHaveAttribute("data-status", "cancelled");
  await expect(viewer.getByTestId("user-message")).toHaveText(prompt);

  // It goes another way from there: the tool shouts bye.
  await sendMessage(viewer, other);
  await expect(viewer.getByTestId("assistant-message").last()).toHaveAttribute("data-run-status", "completed");
  await expect(viewer.getByTestId("tool-call").filter({ hasText: "BYE!" })).toBeVisible();

  // Back on the shared page, Compare… on the original's run, then the fork's new run on the right, by keyboard.
  await viewer.goto(url);
  await tabUntilFocused(viewer, viewer.getByRole("link", { name: "Compare run 1 with another run" }));
  await viewer.keyboard.press("Enter");
  await expect(viewer).toHaveURL(/\/s\/[\w-]+\/compare\?a=/);
  const right = viewer.getByLabel("Right run", { exact: true });
  await expect(right.locator("optgroup")).toHaveCount(2);
  await expect(right.locator('optgroup[label^="Your fork 1"] option')).toHaveText([
    `Run 1: ${prompt}`,
    `Run 2: ${other}`,
  ]);
  await tabUntilFocused(viewer, right);
  // A closed select moves to the next option with the arrow key, as a keyboard user chooses.
  await viewer.keyboard.press("ArrowDown");
  await expect(right).toHaveValue((await right.locator("option", { hasText: other }).getAttribute("value"))!);
  await tabUntilFocused(viewer, viewer.getByRole("button", { name: "Compare" }));
  await viewer.keyboard.press("Enter");
  await expect(viewer).toHaveURL(/&b=/);

  // Step 2 shouted hi on the left and bye on the right; step 3 answered HI! and BYE!.
  await expect(viewer.getByTestId("compare-summary")).toHaveText(/^[23] of 3 steps differ\.$/);
  const steps = viewer.getByTestId("compare-step");
  await expect(steps.nth(1)).toHaveAttribute("data-kind", "differs");
  await expect(steps.nth(2)).toHaveAttribute("data-kind", "differs");
  const shouts = steps.nth(1).getByTestId("compare-call");
  await expect(shouts).toHaveAttribute("data-kind", "differs");
  const input = shouts.locator('[data-field="input"]');
  await expect(input.first()).toHaveAttribute("data-differs", "true");
  await expect(input.first().getByText("Differs")).toBeVisible();
  await expect(input.first().locator("mark")).toHaveText('"text": "hi"');
  await expect(input.last().locator("mark")).toHaveText('"text": "bye"');
  await expect(shouts.locator('[data-field="output"]').last().locator("mark")).toHaveText("BYE");
  await snapshot(viewer, "40-compare-original-and-fork");

  // Each step links to its card in its conversation.
  await steps
    .nth(1)
    .getByRole("link", { name: /Step 2 of the right run/ })
    .click();
  await expect(viewer).toHaveURL(new RegExp(`${forkPath}#e\\d+$`));
  await context.close();
});

test("the owner continues from a tool call of their own conversation; a run of someone else's is not found", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "Shout twice.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "shout", args: { text: "one" } }] },
    { toolCalls: [{ name: "shout", args: { text: "two" } }] },
    { text: "Done." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const original = new URL(page.url()).pathname;
  await page.getByRole("button", { name: "Continue from the shout call" }).first().click();
  await expect(page).not.toHaveURL(new RegExp(`${original}$`));
  await expect(page.getByTestId("trace-step")).toHaveCount(2);
  await expect(page.getByTestId("trace-run").getByTestId("run-status")).toHaveAttribute("data-status", "cancelled");

  // The fork's run against the original's: the first two steps are the same, the rest only on the original's side.
  await page.getByRole("link", { name: "Compare run 1 with another run" }).click();
  await expect(page.getByTestId("compare-summary")).toHaveText("2 of 4 steps differ.");
  await expect(page.getByTestId("compare-step").first()).toHaveAttribute("data-kind", "same");
  const compareUrl = page.url();

  // Another identity may not open it.
  const strangers = await browser.newContext();
  expect((await (await strangers.newPage()).goto(compareUrl))!.status()).toBe(404);
  await strangers.close();
});
