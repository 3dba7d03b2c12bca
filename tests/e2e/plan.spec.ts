import { expect, sendMessage, snapshot, test } from "./fixtures";

test("a plan the agent wrote with think shows in the reasoning panel as a plan card, not as a tool call", async ({
  page,
  servers,
}) => {
  const prompt = "Plan, then add 2 and 3.";
  const thought = "1. Add the numbers with calculate.\n2. Answer in one line.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "think", args: { thought } }] },
    { toolCalls: [{ name: "calculate", args: { expression: "2 + 3" } }] },
    { text: "It is 5." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  const panel = page.getByRole("complementary", { name: "Reasoning panel" });
  const plan = panel.getByRole("region", { name: "Plan", exact: true });
  await expect(plan).toBeVisible();
  await expect(plan).toContainText("Plan");
  expect(await plan.locator("p").innerText()).toBe(thought);
  await expect(panel.locator('[data-testid="tool-call"][data-tool="think"]')).toHaveCount(0);
  // The run went on past the plan: the next step's call is an ordinary card.
  await expect(panel.locator('[data-testid="tool-call"][data-tool="calculate"]')).toHaveAttribute("data-status", "ok");
  // Nothing in it to operate: the keyboard passes it by.
  await expect(plan.locator("a, button, input, summary, [tabindex]")).toHaveCount(0);
  await snapshot(page, "plan-card");
  await page.emulateMedia({ colorScheme: "dark" });
  await snapshot(page, "plan-card-dark");
});
