import { expect, expectAccessible, sendMessage, snapshot, test } from "./fixtures";

test("a reviewer annotates through a share link and the owner sees it live; deleting it; verdicts; a revoked link refuses", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "Work out one over nothing, then explain.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "calculate", args: { expression: "1 / " } }] },
    { text: "The expression was incomplete." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const conversationId = new URL(page.url()).pathname.split("/").at(-1)!;
  const { url } = await (await page.request.post(`/api/conversations/${conversationId}/share`)).json();

  // A second identity opens the link and annotates the failed call.
  const reviewerContext = await browser.newContext();
  const reviewer = await reviewerContext.newPage();
  await reviewer.goto(url);
  const call = reviewer.getByTestId("tool-call").filter({ hasText: "calculate" });
  await call.getByRole("button", { name: "Annotate the calculate call" }).click();
  const form = reviewer.getByRole("form", { name: "Annotate the calculate call" });
  await form.getByText("bad input", { exact: true }).click();
  await form.getByLabel("Note").fill("The model sent half an expression.");
  await expectAccessible(reviewer, "the annotation form on a shared page");
  await form.getByRole("button", { name: "Save annotation" }).click();
  await expect(call.getByTestId("annotation")).toContainText("bad input");
  await expect(call.getByTestId("annotation")).toContainText("Reviewer 1");

  // The owner sees it without reloading, with the reviewer's name and note.
  const ownersCall = page.getByTestId("tool-call").filter({ hasText: "calculate" });
  await expect(ownersCall.getByTestId("annotation")).toContainText("The model sent half an expression.", {
    timeout: 5_000,
  });
  await expect(ownersCall.getByTestId("annotation")).toContainText("Reviewer 1");
  await snapshot(page, "30-annotation-seen-by-owner");

  // Verdicts: the owner's thumbs down with a note reaches the reviewer; the sidebar can show only those.
  await page.getByRole("button", { name: /^Thumbs down on run 1/ }).click();
  await page.getByLabel("Why thumbs down on run 1? (optional)").fill("Should have asked again.");
  await page.getByRole("button", { name: "Save note" }).click();
  await expect(reviewer.getByTestId("verdict")).toHaveText("Owner: thumbs down — Should have asked again.");
  await expect(page.getByRole("button", { name: /^Thumbs down on run 1/ })).toHaveAttribute("aria-pressed", "true");
  await expectAccessible(page, "a run with an annotation and a verdict");
  await page.getByRole("button", { name: "Only thumbs down" }).click();
  await expect(page.getByTestId("conversation-list").getByRole("link")).toHaveText([prompt]);

  // The reviewer deletes their annotation; it goes for the owner too. The owner's own one cannot be deleted by them.
  await reviewer
    .getByTestId("annotation")
    .getByRole("button", { name: /^Delete Reviewer 1's annotation/ })
    .click();
  await expect(ownersCall.getByTestId("annotation")).toHaveCount(0, { timeout: 5_000 });
  await ownersCall.getByRole("button", { name: "Annotate the calculate call" }).click();
  await page
    .getByRole("form", { name: "Annotate the calculate call" })
    .getByRole("button", { name: "Save annotation" })
    .click();
  await expect(call.getByTestId("annotation")).toContainText("Owner");
  await expect(call.getByTestId("annotation").getByRole("button", { name: /^Delete/ })).toHaveCount(0);

  // Revoked: the link refuses annotations, and the page says so.
  expect((await page.request.delete(`/api/conversations/${conversationId}/share`)).status()).toBe(204);
  const token = new URL(url).pathname.split("/").at(-1);
  const refused = await reviewer.request.post(`/api/share/${token}/annotations`, {
    data: { eventId: 2, label: "good" },
  });
  expect(refused.status()).toBe(404);
  await expect(reviewer.getByRole("alert").filter({ hasText: "This link no longer works" })).toBeVisible();
  await reviewerContext.close();
});

test("the owner keeps an annotated call that went wrong as a failing example of the tool", async ({
  page,
  servers,
}) => {
  const prompt = "Halve minus four with a tool of your own.";
  servers.model.script(prompt, [
    {
      toolCalls: [
        {
          name: "register_tool",
          args: {
            name: "halve",
            description: "Half of a number.",
            parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
            code: "function run({ n }) { if (n < 0) throw new Error('negative'); return n / 2; }",
          },
        },
      ],
    },
    { toolCalls: [{ name: "halve", args: { n: -4 } }] },
    { text: "It failed." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const call = page.locator('[data-testid="tool-call"][data-tool="halve"]');
  await expect(call.getByRole("button", { name: "Keep as a failing example" })).toHaveCount(0);
  await call.getByRole("button", { name: "Annotate the halve call" }).click();
  await page
    .getByRole("form", { name: "Annotate the halve call" })
    .getByRole("button", { name: "Save annotation" })
    .click();
  await call.getByRole("button", { name: "Keep as a failing example" }).click();
  const form = call.getByRole("form", { name: "Keep this halve call as a failing example" });
  await form.getByLabel("What it should have returned (JSON)").fill("minus two");
  await form.getByRole("button", { name: "Keep it" }).click();
  await expect(form.getByRole("alert")).toContainText("must be JSON");
  await expectAccessible(page, "the failing example form with its error");
  await form.getByLabel("What it should have returned (JSON)").fill("-2");
  await form.getByRole("button", { name: "Keep it" }).click();
  await expect(call.getByRole("status")).toHaveText(
    "Kept as a failing example of halve: its next version must pass it.",
  );
});
