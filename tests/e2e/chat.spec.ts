import path from "node:path";
import { AppServer, tempDataDir } from "../support/app-server";
import { TcpProxy } from "../support/tcp-proxy";
import { expect, sendMessage, snapshot, test } from "./fixtures";

const WORD_COUNT = `function run({ text }) {
  const words = text.trim().split(/\\s+/).filter(Boolean);
  return { words: words.length };
}`;
const SCHEMA = {
  type: "object",
  properties: { text: { type: "string", description: "The text" }, strict: { type: "boolean" } },
  required: ["text"],
};

test("a message streams, the registered tool shows as an emerald card, then its result and the answer", async ({
  page,
  servers,
}) => {
  const prompt = "How many words are in 'tools that build tools'?";
  servers.model.script(prompt, [
    {
      text: "No tool counts words, so I will write one.",
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: "word_count",
            description: "Count the words in a text.",
            parameters_schema: SCHEMA,
            code: WORD_COUNT,
          },
        },
      ],
    },
    { toolCalls: [{ name: "word_count", args: { text: "tools that build tools" } }] },
    {
      text: "There are **4** words.\n\n| text | words |\n| --- | --- |\n| tools that build tools | 4 |",
      // Some 3 s of streaming: long enough to be seen running after the card's checks on a loaded machine.
      chunkSize: 3,
      delayMs: 100,
    },
  ]);
  await page.goto("/");
  await snapshot(page, "01-empty-state");
  await sendMessage(page, prompt);

  await expect(page).toHaveURL(/\/c\/[\w-]+$/);
  await expect(page.getByTestId("user-message")).toHaveText(prompt);
  const card = page.getByTestId("tool-registered").first();
  await expect(card).toBeVisible();
  await expect(card.getByTestId("tool-signature")).toHaveText("word_count(text: string, strict?: boolean)");
  await expect(card).toContainText("Count the words in a text.");
  await expect(card).toContainText("v1");
  await card.getByText("Show code").click();
  await expect(card.locator("pre")).toContainText("function run({ text })");

  // the answer streams in: part of it shows while the run is still going
  const answer = page.getByTestId("assistant-message");
  await expect(answer).toContainText("There are");
  await expect(answer).toHaveAttribute("data-run-status", "running");
  await expect(answer).toHaveAttribute("data-run-status", "completed");
  await expect(answer.locator("table")).toContainText("tools that build tools");
  await expect(answer.locator("strong")).toHaveText("4");

  const wordCountCall = page.locator('[data-testid="tool-call"][data-tool="word_count"]');
  await expect(wordCountCall).toHaveAttribute("data-status", "ok");
  await expect(wordCountCall).toContainText('"words": 4');
  await expect(page.getByTestId("trace-step")).toHaveCount(3);
  await snapshot(page, "02-tool-registered");
  const callsBefore = await page.getByTestId("tool-call").count();
  expect(callsBefore).toBe(2);

  await page.emulateMedia({ colorScheme: "dark" });
  await snapshot(page, "02b-tool-registered-dark");
  await page.emulateMedia({ colorScheme: "light" });

  await page.getByRole("tab", { name: /Tools/ }).click();
  await expect(page.getByLabel("Registered tools").getByTestId("tool-signature")).toHaveText(
    "word_count(text: string, strict?: boolean)",
  );
  await snapshot(page, "03-tools-view");

  // reload shows the same trace
  await page.reload();
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await expect(page.getByTestId("tool-call")).toHaveCount(callsBefore);
  await expect(page.getByTestId("tool-registered").first().getByTestId("tool-signature")).toHaveText(
    "word_count(text: string, strict?: boolean)",
  );
  await expect(page.getByTestId("assistant-message").locator("table")).toBeVisible();
});

test("a rejected tool shows a rose card with its violation, marked in the code", async ({ page, servers }) => {
  const prompt = "Read my environment.";
  servers.model.script(prompt, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: "env_reader",
            description: "Read env.",
            parameters_schema: { type: "object" },
            code: "function run() {\n  return process.env;\n}",
          },
        },
      ],
    },
    { text: "The sandbox does not allow that." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  const card = page.getByTestId("tool-rejected");
  await expect(card).toBeVisible();
  await expect(card).toContainText("env_reader");
  await expect(card).toContainText("2:10");
  await expect(card).toContainText("`process` is not allowed");
  await expect(card.locator('[data-marked="true"]')).toContainText("return process.env;");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await card.scrollIntoViewIfNeeded();
  await snapshot(page, "04-tool-rejected");
});

test("reloading during a run shows everything so far and keeps following live", async ({ page, servers }) => {
  const prompt = "Tell a slow story.";
  const story = Array.from({ length: 30 }, (_, i) => `word${i}`).join(" ");
  servers.model.script(prompt, [{ text: story, chunkSize: 6, delayMs: 150 }]);
  await page.goto("/");
  await sendMessage(page, prompt);
  const answer = page.getByTestId("assistant-message");
  await expect(answer).toContainText("word3");
  await expect(answer).toHaveAttribute("data-run-status", "running");
  await snapshot(page, "05-running");

  await page.reload();
  // the reloaded page joins the run while it is still going, then follows it to the end
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "running");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed", {
    timeout: 20_000,
  });
  // every delta exactly once: nothing missed, nothing doubled across the reload
  await expect(page.getByTestId("assistant-message").locator("p").first()).toHaveText(story);
});

test("Stop cancels the active run", async ({ page, servers }) => {
  const prompt = "Take forever.";
  servers.model.script(prompt, [{ stallMs: 20_000 }]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "running");
  await page.getByRole("button", { name: "Stop the run" }).click();
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "cancelled");
  await expect(page.getByTestId("assistant-message").getByTestId("run-status")).toHaveText("Cancelled");
  await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
});

test("the sidebar lists, renames and deletes conversations", async ({ page, servers }) => {
  const prompt = "A chat to rename.";
  servers.model.script(prompt, [{ text: "Hello." }]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const list = page.getByTestId("conversation-list");
  await expect(list.getByRole("link", { name: prompt })).toBeVisible();

  await list.getByRole("button", { name: `Rename ${prompt}` }).click();
  await page.getByLabel("Conversation title").fill("Renamed chat");
  await page.getByLabel("Conversation title").press("Enter");
  await expect(list.getByRole("link", { name: "Renamed chat" })).toBeVisible();
  await expect(page.getByTestId("conversation-title")).toHaveText("Renamed chat");

  await list.getByRole("button", { name: "Delete Renamed chat" }).click();
  await list.getByRole("button", { name: "Delete", exact: true }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(list.getByRole("link", { name: "Renamed chat" })).toHaveCount(0);
  await expect(page.getByRole("list", { name: "Example prompts" })).toBeVisible();
});

test("New chat (and its shortcut) starts from an empty view", async ({ page, servers }) => {
  servers.model.script("First chat.", [{ text: "One." }]);
  await page.goto("/");
  await sendMessage(page, "First chat.");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await page.keyboard.press("Control+Shift+O");
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByTestId("user-message")).toHaveCount(0);
  await expect(page.getByLabel("Message", { exact: true })).toBeFocused();
  await page.getByLabel("Conversations").getByRole("link", { name: "First chat." }).click();
  await expect(page.getByTestId("user-message")).toHaveText("First chat.");
  await page.getByRole("button", { name: "New chat" }).click();
  await expect(page.getByTestId("user-message")).toHaveCount(0);
});

test.describe("at 360 px wide", () => {
  test.use({ viewport: { width: 360, height: 740 } });

  test("the sidebar and the reasoning panel are drawers", async ({ page, servers }) => {
    const prompt = "Compute 6 * 7 on a phone.";
    servers.model.script(prompt, [
      { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] },
      { text: "It is 42." },
    ]);
    await page.goto("/");
    await expect(page.getByTestId("sidebar")).toBeHidden();
    await expect(page.getByTestId("panel")).toBeHidden();
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
    await snapshot(page, "06-mobile-chat");

    await page.getByRole("button", { name: "Open conversations" }).click();
    await expect(page.getByTestId("sidebar")).toBeVisible();
    // the drawer takes the focus, and gives it back when it closes
    await expect(page.getByRole("button", { name: "New chat" })).toBeFocused();
    await expect(page.getByTestId("conversation-list").getByRole("link", { name: prompt })).toBeVisible();
    await snapshot(page, "07-mobile-sidebar");
    await page.keyboard.press("Escape");
    await expect(page.getByTestId("sidebar")).toBeHidden();
    await expect(page.getByRole("button", { name: "Open conversations" })).toBeFocused();

    await page.getByRole("button", { name: "Open the reasoning panel" }).click();
    const panel = page.getByTestId("panel");
    await expect(panel).toBeVisible();
    await expect(panel.locator('[data-testid="tool-call"][data-tool="calculate"]')).toContainText("42");
    await snapshot(page, "08-mobile-panel");
    await panel.getByRole("button", { name: "Close the reasoning panel" }).click();
    await expect(panel).toBeHidden();
  });
});

test("without a model, a banner says what to set and the rest still works", async ({ page }) => {
  const bare = new AppServer({
    DATABASE_URL: `file:${path.join(tempDataDir(), "bare.db")}`,
    OPENAI_API_KEY: "",
    OPENAI_BASE_URL: "",
  });
  await bare.start();
  try {
    await page.goto(bare.url);
    const banner = page.getByTestId("model-banner");
    await expect(banner).toContainText("OPENAI_API_KEY");
    await expect(banner).toContainText("OPENAI_BASE_URL");
    await sendMessage(page, "Hello?");
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "error");
    await expect(page.getByTestId("assistant-message").getByRole("alert")).toContainText("No model is configured");
    await snapshot(page, "09-no-model");
  } finally {
    await bare.stop();
  }
});

test("a dropped connection reconnects and resumes without duplicates or gaps", async ({ page, servers }) => {
  const proxy = new TcpProxy(Number(new URL(servers.app.url).port));
  await proxy.start();
  try {
    const prompt = "Stream through a network drop.";
    const story = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
    servers.model.script(prompt, [{ text: story, chunkSize: 4, delayMs: 60 }]);
    await page.goto(`${proxy.url}/`);
    await sendMessage(page, prompt);
    const answer = page.getByTestId("assistant-message");
    await expect(answer).toContainText("w3");
    await expect(answer).toHaveAttribute("data-run-status", "running");
    // the cut lands mid-run
    proxy.dropConnections();
    await expect(answer).toHaveAttribute("data-run-status", "completed", { timeout: 20_000 });
    // every delta once: the reconnect resumed after the last event seen
    await expect(answer.locator("p").first()).toHaveText(story);
  } finally {
    await proxy.stop();
  }
});
