import { expect, sendMessage, snapshot, test } from "./fixtures";

test("a viewer follows a live run through a share link, sees the owner's trace, and can continue it in their own chats", async ({
  page,
  browser,
  servers,
  baseURL,
}) => {
  const prompt = "Build a shout tool and use it slowly.";
  const answer = Array.from({ length: 25 }, (_, i) => `part${i}`).join(" ");
  servers.model.script(prompt, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: "shout",
            description: "Upper-case a text.",
            parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
            code: "function run({ text }) { return text.toUpperCase(); }",
          },
        },
      ],
    },
    { text: answer, chunkSize: 5, delayMs: 120 },
  ]);

  // The owner starts a run and shares the conversation while it goes on.
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("tool-registered")).toBeVisible();
  await page.getByRole("button", { name: "Share" }).click();
  const dialog = page.getByRole("dialog", { name: "Share this conversation" });
  await expect(dialog).toContainText("Anyone with the link sees the whole conversation");
  await dialog.getByRole("button", { name: "Create link" }).click();
  const url = await dialog.getByTestId("share-url").inputValue();
  expect(url).toMatch(new RegExp(`^${baseURL}/s/[\\w-]{43}$`));
  await snapshot(page, "10-share-dialog");
  await dialog.getByRole("button", { name: "Close" }).click();

  // A viewer, in a context of their own, opens the link mid-run and follows it live.
  const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const viewer = await viewerContext.newPage();
  await viewer.goto(url);
  await expect(viewer.getByTestId("shared-banner")).toBeVisible();
  await expect(viewer.getByLabel("Message", { exact: true })).toHaveCount(0);
  await expect(viewer.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "running");
  await expect(viewer.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed", {
    timeout: 20_000,
  });
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await snapshot(viewer, "11-shared-view");

  // Both see the same trace.
  const traceOf = async (target: typeof page) => ({
    answer: await target.getByTestId("assistant-message").locator("p").first().textContent(),
    steps: await target.getByTestId("trace-step").count(),
    // The same cards, but for what only the owner can do with them (add to the library, open the tool's page).
    calls: await target.getByTestId("tool-call").evaluateAll((cards) =>
      cards.map((card) => {
        const copy = card.cloneNode(true) as HTMLElement;
        copy.querySelectorAll('[data-testid="library-actions"]').forEach((actions) => actions.remove());
        return copy.textContent;
      }),
    ),
    signature: await target.getByTestId("tool-registered").getByTestId("tool-signature").textContent(),
  });
  const owners = await traceOf(page);
  expect(owners.answer).toBe(answer);
  expect(await traceOf(viewer)).toEqual(owners);
  await expect(page.getByTestId("library-actions")).toHaveCount(1);
  await expect(viewer.getByTestId("library-actions")).toHaveCount(0);

  // "Continue in my chats": the viewer gets a copy of their own, with the tool.
  await viewer.getByRole("button", { name: "Continue in my chats" }).click();
  await expect(viewer).toHaveURL(/\/c\/[\w-]+$/);
  await expect(viewer.getByLabel("Message", { exact: true })).toBeVisible();
  await expect(viewer.getByTestId("conversation-list").getByRole("link", { name: prompt })).toBeVisible();
  await viewer.getByRole("tab", { name: /Tools/ }).click();
  await expect(viewer.getByLabel("Registered tools").getByTestId("tool-signature")).toHaveText("shout(text: string)");

  // The owner lists and revokes the link; the viewer's next visit finds nothing.
  await page.goto("/shared");
  await expect(page.getByTestId("shared-links")).toContainText(prompt);
  await page.getByRole("button", { name: "Revoke" }).click();
  await expect(page.getByTestId("shared-links")).toHaveCount(0);
  const gone = await viewer.goto(url);
  expect(gone?.status()).toBe(404);
  await viewerContext.close();
});

test("a viewer following a live run is told when the link is revoked, and keeps what it showed", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "Answer slowly while the link is revoked.";
  servers.model.script(prompt, [
    { text: Array.from({ length: 60 }, (_, i) => `word${i}`).join(" "), chunkSize: 3, delayMs: 150 },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page).toHaveURL(/\/c\/[\w-]+$/);
  const conversationId = new URL(page.url()).pathname.split("/").at(-1)!;
  const { url } = await (await page.request.post(`/api/conversations/${conversationId}/share`)).json();

  const viewerContext = await browser.newContext();
  const viewer = await viewerContext.newPage();
  await viewer.goto(url);
  await expect(viewer.getByTestId("assistant-message")).toContainText("word0");
  expect((await page.request.delete(`/api/conversations/${conversationId}/share`)).status()).toBe(204);
  await expect(viewer.getByRole("alert").filter({ hasText: "This link no longer works: it was revoked" })).toBeVisible({
    timeout: 5_000,
  });
  await expect(viewer.getByTestId("assistant-message")).toContainText("word0");
  await viewerContext.close();
});
