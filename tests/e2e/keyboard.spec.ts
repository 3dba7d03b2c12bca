import type { Page } from "@playwright/test";
import { expect, focusedName, sendMessage, tabTo, test } from "./fixtures";

/**
 * A modal dialog makes the page behind it inert: Tab cycles through the dialog and the browser's own controls
 * (where the page sees no focused element), never through the page behind.
 */
const focusIsNotBehindDialog = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element === null || element === document.body || element.closest("dialog[open]") !== null;
  });

test("the share dialog asks once per opening during a streaming run, keeps the focus inside, and gives it back", async ({
  page,
  servers,
}) => {
  const prompt = "Stream while I share.";
  servers.model.script(prompt, [
    { text: Array.from({ length: 60 }, (_, i) => `w${i}`).join(" "), chunkSize: 3, delayMs: 60 },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  const answer = page.getByTestId("assistant-message");
  await expect(answer).toHaveAttribute("data-run-status", "running");

  const shareRequests: string[] = [];
  page.on(
    "request",
    (request) => request.method() === "GET" && request.url().endsWith("/share") && shareRequests.push(request.url()),
  );
  const shareButton = page.getByRole("button", { name: "Share", exact: true });
  await shareButton.click();
  const dialog = page.getByRole("dialog", { name: "Share this conversation" });
  await expect(dialog.getByRole("button", { name: "Create link" })).toBeVisible();
  await tabTo(page, /^Create link$/);
  // the run keeps streaming (a render per frame) while the dialog is open
  await page.waitForTimeout(1500);
  await expect(answer).toHaveAttribute("data-run-status", "running");
  expect(await focusedName(page)).toBe("Create link");
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    expect(await focusIsNotBehindDialog(page)).toBe(true);
  }
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Shift+Tab");
    expect(await focusIsNotBehindDialog(page)).toBe(true);
  }
  expect(shareRequests).toHaveLength(1);

  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(shareButton).toBeFocused();
  // a click on the backdrop closes it too
  await shareButton.click();
  await expect(dialog).toBeVisible();
  await page.mouse.click(5, 5);
  await expect(dialog).toBeHidden();
  expect(shareRequests).toHaveLength(2);
});

test("the whole flow works by keyboard alone: send, open a tool card, share, revoke", async ({ page, servers }) => {
  const prompt = "Make an echo tool, by keyboard.";
  servers.model.script(prompt, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: "echo",
            description: "Say it back.",
            parameters_schema: { type: "object", properties: { text: { type: "string" } } },
            code: "function run({ text }) {\n  return text;\n}",
          },
        },
      ],
    },
    { text: "Made **echo**." },
  ]);
  await page.goto("/");
  await expect(page.getByLabel("Message", { exact: true })).toBeFocused();
  await page.keyboard.type(prompt);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  // from the composer into the reasoning panel, to the registered tool's code
  await page.getByLabel("Message", { exact: true }).focus();
  await tabTo(page, /^Show code/);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("tool-registered").locator("pre")).toContainText("return text;");
  // the code is scrollable by keyboard: it takes the focus
  await tabTo(page, /javascript code/);

  await tabTo(page, /^Share$/, { backwards: true, max: 120 });
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Share this conversation" });
  await expect(dialog).toBeVisible();
  await tabTo(page, /^Create link$/);
  await page.keyboard.press("Enter");
  await expect(dialog.getByTestId("share-url")).toHaveValue(/\/s\//);
  await tabTo(page, /^Revoke link$/);
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("button", { name: "Create link" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("button", { name: "Share", exact: true })).toBeFocused();
});

test("a tool is written from a description by keyboard alone: open the form, fill it, submit, cancel, submit again", async ({
  page,
  servers,
}) => {
  const description = "Count the words of a text, by keyboard.";
  const write = {
    name: "write_tool",
    args: {
      name: "word_count",
      description: "Count the words of a text.",
      parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      code: "function run({ text }) {\n  return text.split(' ').filter(Boolean).length;\n}",
      examples: [{ input: { text: "a b  c" }, expected_output: 3 }],
    },
  };
  // The first answer is slow enough to cancel; the second comes at once.
  let answers = 0;
  servers.model.script(`${description}\n\nName the tool word_count.`, () =>
    answers++ === 0
      ? { text: "x".repeat(100), chunkSize: 1, delayMs: 200, toolCalls: [write] }
      : { toolCalls: [write] },
  );
  await page.goto("/tools");
  await tabTo(page, /^Create from description$/);
  await page.keyboard.press("Enter");
  const field = page.getByLabel("Description", { exact: true });
  await expect(field).toBeFocused();
  // Escape closes the form, and the focus goes back to what opened it
  await page.keyboard.press("Escape");
  await expect(field).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Create from description" })).toBeFocused();

  await page.keyboard.press("Enter");
  await page.keyboard.type(description);
  await page.keyboard.press("Tab");
  await expect(page.getByLabel("Name (optional)")).toBeFocused();
  await page.keyboard.type("word_count");
  // the language, JavaScript unless changed
  await page.keyboard.press("Tab");
  await expect(page.getByRole("radio", { name: "JavaScript" })).toBeFocused();
  await expect(page.getByRole("radio", { name: "JavaScript" })).toBeChecked();
  await page.keyboard.press("Tab");
  await expect(page.getByRole("button", { name: "Write the tool" })).toBeFocused();
  await page.keyboard.press("Enter");
  const status = page.getByTestId("generation-status");
  await expect(status).toHaveText("Attempt 1 of 3: the model is writing the tool…");
  // while it runs, Escape cancels it
  await page.keyboard.press("Escape");
  await expect(status).toHaveText("Attempt 1 of 3 was cancelled.");
  await expect(page.getByRole("button", { name: "Write the tool" })).toBeFocused();

  await page.keyboard.press("Enter");
  await page.waitForURL(/\/tools\/[^/]+$/);
  await expect(page.getByRole("heading", { name: "word_count" })).toBeVisible();
});
