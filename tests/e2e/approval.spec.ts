import fs from "node:fs";
import path from "node:path";
import { scriptedApp, tempDataDir } from "../support/app-server";
import { expect, sendMessage, test } from "./fixtures";

test("a call the profile holds for approval shows its input with Approve and Deny; the run goes on with the answer", async ({
  page,
  servers,
}) => {
  const config = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(
    config,
    "profiles:\n  - name: careful\n    tools: [calculate]\n    approval: [calculate]\n  - name: quick\n    tools: [calculate]\ndefault_profile: careful\n",
  );
  const app = scriptedApp(servers.model.url, { TOOLSMITH_CONFIG: config });
  await app.start();
  try {
    const prompt = "Multiply, with my permission.";
    servers.model.script(prompt, (step, body) => {
      if (step === 0) return { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] };
      if (step === 1) return { toolCalls: [{ name: "calculate", args: { expression: "6 * 8" } }] };
      return { text: `Done after ${body.messages.length} messages.` };
    });
    await page.goto(`${app.url}/`);
    await sendMessage(page, prompt);

    const prompts = page.getByTestId("approval-prompt");
    await expect(prompts).toHaveCount(1);
    await expect(page.getByTestId("tool-call").first()).toContainText('"expression": "6 * 7"');
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "running");
    await expect(page.getByTestId("run-profile")).toHaveText("profile careful");
    await prompts.getByRole("button", { name: "Approve" }).click();
    await expect(page.getByTestId("approval-outcome").first()).toHaveText("Approved by a person.");
    await expect(page.locator('[data-testid="tool-call"][data-status="ok"]')).toContainText("42");

    await expect(prompts).toHaveCount(1);
    await prompts.getByRole("button", { name: "Deny" }).click();
    await expect(page.getByTestId("approval-outcome").nth(1)).toHaveText("Denied by a person.");
    await expect(page.locator('[data-testid="tool-call"][data-status="error"]')).toContainText(
      "A person denied this calculate call",
    );
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

    // The composer shows the conversation's profile, and a new chat can start under another one.
    await expect(page.getByTestId("profile-select")).toHaveValue("careful");
    const quick = "Multiply without asking.";
    servers.model.script(quick, [
      { toolCalls: [{ name: "calculate", args: { expression: "2 * 3" } }] },
      { text: "Six." },
    ]);
    await page.goto(`${app.url}/`);
    await page.getByTestId("profile-select").selectOption("quick");
    await sendMessage(page, quick);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
    await expect(page.getByTestId("run-profile")).toHaveText("profile quick");
    await expect(page.getByTestId("approval-prompt")).toHaveCount(0);
    await expect(page.getByTestId("profile-select")).toHaveValue("quick");
  } finally {
    await app.stop();
  }
});
