import { expect, expectAccessible, snapshot, tabTo, test } from "./fixtures";

test("plan first, by keyboard: a checklist pinned at the top of the run ticks as the plan is followed, and the switch is remembered", async ({
  page,
  servers,
}) => {
  const prompt = "Read the CSV and sum its column.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "plan", args: { steps: [{ title: "Read the CSV" }, { title: "Sum the column" }] } }] },
    {
      toolCalls: [
        {
          name: "update_plan",
          args: {
            updates: [
              { id: "p1", status: "done" },
              { id: "p2", status: "in_progress" },
            ],
          },
        },
        { name: "calculate", args: { expression: "2 + 3" } },
      ],
    },
    {
      toolCalls: [
        { name: "update_plan", args: { updates: [{ id: "p2", status: "skipped", note: "Nothing to sum" }] } },
      ],
    },
    { text: "Read it; there was nothing to sum (skipped)." },
  ]);
  await page.goto("/");
  const composer = page.getByLabel("Message", { exact: true });
  const planFirst = page.getByRole("switch", { name: "Plan first" });
  await composer.focus();
  await tabTo(page, planFirst, { max: 15 });
  await page.keyboard.press("Space");
  await expect(planFirst).toBeChecked();
  await tabTo(page, composer, { max: 15, backwards: true });
  await page.keyboard.type(prompt);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  const panel = page.getByRole("complementary", { name: "Reasoning panel" });
  const checklist = panel.getByRole("region", { name: "Plan of run 1" });
  await expect(checklist).toContainText("1 of 2 done");
  const items = checklist.getByTestId("plan-item");
  await expect(items).toHaveCount(2);
  await expect(items.nth(0)).toHaveAttribute("data-status", "done");
  await expect(items.nth(0)).toContainText("Done: Read the CSV");
  await expect(items.nth(1)).toHaveAttribute("data-status", "skipped");
  await expect(items.nth(1)).toContainText("Nothing to sum");
  // Each item links to the step that last changed it: its card is there, and the link takes the page to it.
  const stepLink = items.nth(1).getByRole("link", { name: "Sum the column: step 3" });
  const anchor = (await stepLink.getAttribute("href"))!;
  await expect(panel.locator(anchor)).toHaveAttribute("data-testid", "trace-step");
  await stepLink.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${anchor}$`));
  await expectAccessible(page, "a plan-first run");
  await snapshot(page, "plan-checklist");
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, "a plan-first run, dark");
  await page.emulateMedia({ colorScheme: "light" });

  // The switch is the conversation's: it is still on after a reload.
  await page.reload();
  // Hydrated: the page focuses the message box then.
  await expect(composer).toBeFocused();
  await expect(page.getByRole("switch", { name: "Plan first" })).toBeChecked();

  // The other mode, to compare: a fork runs the message again without a plan, and the compare page shows both.
  const rerun = panel.getByRole("button", { name: "Run again without a plan: run 1, then compare" });
  await expect(rerun).toHaveText("Run again without a plan");
  await rerun.focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/compare\?a=[^&]+&b=/);
  await expect(page.getByText("planned first")).toHaveCount(1);
  await expectAccessible(page, "the compare page of a rerun");
});
