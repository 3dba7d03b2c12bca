import type { Page } from "@playwright/test";
import { expect, expectAccessible, sendMessage, snapshot, tabTo, test } from "./fixtures";

/** axe in the dark scheme, then the light one (the scheme the rest of the test goes on in). */
async function accessibleInBothSchemes(page: Page, where: string) {
  for (const colorScheme of ["dark", "light"] as const) {
    await page.emulateMedia({ colorScheme });
    await expectAccessible(page, `${where} (${colorScheme})`);
  }
}

const tool = (name: string, code: string, more: object = {}) => ({
  name,
  description: `The ${name} tool.`,
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code,
  ...more,
});
const SHOUT = tool("shout", "function run({ text }) { return text.toUpperCase() + '!'; }");
const GREET = tool(
  "greet",
  "async function run({ text }) { return { greeting: await tools.call('shout', { text: 'hello ' + text }) }; }",
  { uses: ["shout"], examples: [{ input: { text: "bo" }, expected_output: { greeting: "HELLO BO!" } }] },
);
// A quiet shout: greet's example now gets "hello bo".
const QUIET = tool("shout", "function run({ text }) { return text; }");

test("the cards show what a tool uses and which tools a new version breaks; the tool pages link Uses and Used by", async ({
  page,
  servers,
}) => {
  const prompt = "Make shout, greet that uses it, then a quiet shout.";
  servers.model.script(prompt, [
    { toolCalls: [{ name: "register_tool", args: SHOUT }] },
    { toolCalls: [{ name: "register_tool", args: GREET }] },
    { toolCalls: [{ name: "register_tool", args: QUIET }] },
    { text: "greet now fails." },
  ]);
  await page.setViewportSize({ width: 390, height: 900 });
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await page.getByRole("button", { name: "Open the reasoning panel" }).click();

  const cards = page.getByTestId("tool-registered");
  await expect(cards).toHaveCount(3);
  await expect(cards.nth(0).getByTestId("tool-uses")).toHaveCount(0);
  await expect(cards.nth(1).getByTestId("tool-uses")).toHaveText("Uses shout");
  await expect(cards.nth(1).getByTestId("dependents")).toHaveCount(0);
  const broken = cards.nth(2).getByTestId("dependent-failed");
  await expect(broken).toHaveCount(1);
  await expect(broken.getByRole("paragraph")).toHaveText("greet: 1 example now fails");
  const outcome = broken.getByTestId("example-outcomes");
  await expect(outcome).toContainText("Failed");
  await expect(outcome).toContainText('{"text":"bo"}');
  await expect(outcome).toContainText('{"greeting":"HELLO BO!"}');
  await expect(outcome).toContainText('{"greeting":"hello bo"}');
  await expect(cards.nth(2).getByTestId("dependents-passed")).toHaveCount(0);
  await cards.nth(2).getByTestId("dependents").scrollIntoViewIfNeeded();
  await snapshot(page, "tool-dependencies-cards");
  await accessibleInBothSchemes(page, "the dependency cards");

  // From shout v2's card to its page, to greet's and back to shout's: by keyboard only.
  await tabTo(page, /^Open shout's page$/, { max: 200 });
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "shout" })).toBeVisible();
  await expect(page.getByText("v2", { exact: true })).toBeVisible();
  const shoutRelations = page.getByTestId("tool-relations");
  await expect(shoutRelations).toHaveText(/^Used by\s*greet$/);
  await expect(shoutRelations).not.toContainText("Uses");
  await accessibleInBothSchemes(page, "shout's page");
  await tabTo(page, /^greet$/);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "greet" })).toBeVisible();
  await expect(page.getByTestId("tool-relations")).toHaveText(/^Uses\s*shout$/);
  await accessibleInBothSchemes(page, "greet's page");
  await tabTo(page, /^shout$/);
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { name: "shout" })).toBeVisible();

  // The library's line for shout says one tool uses it.
  await tabTo(page, /^(← )?Tool library$/);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("library-tools")).toContainText("used by 1");
});

test("a tool written from a description that breaks the tools using it stays on the form to say so", async ({
  page,
  servers,
}) => {
  // Names of their own: the tools of the test above live in the same database.
  await page.setViewportSize({ width: 390, height: 900 });
  // The visit gives the page its session, which the API requests below go with.
  await page.goto("/tools");
  const yell = { ...SHOUT, name: "yell" };
  const hail = { ...GREET, name: "hail", code: GREET.code.replace("'shout'", "'yell'"), uses: ["yell"] };
  expect((await page.request.post("/api/tools", { data: yell })).status()).toBe(201);
  expect((await page.request.post("/api/tools", { data: hail })).status()).toBe(201);
  const description = "Yell a text, but quietly.";
  servers.model.script(description, [
    // A written tool must have examples: the quiet one passes its own, and breaks hail's.
    {
      toolCalls: [
        {
          name: "write_tool",
          args: { ...QUIET, name: "yell", examples: [{ input: { text: "a" }, expected_output: "a" }] },
        },
      ],
    },
  ]);

  await page.getByRole("button", { name: "Create from description" }).click();
  await page.getByLabel("Description", { exact: true }).fill(description);
  await page.getByRole("button", { name: "Write the tool" }).click();

  const alert = page.getByTestId("generation-dependents");
  await expect(alert).toContainText("yell v2 was saved, and tools that use it now fail their examples.");
  await expect(alert.getByTestId("dependent-failed").getByRole("paragraph")).toHaveText("hail: 1 example now fails");
  await expect(alert.getByTestId("example-outcomes")).toContainText('{"greeting":"hello bo"}');
  await expect(page.getByTestId("generation-status")).toHaveText(
    "Attempt 1 of 3 passed and the tool was saved, but tools that use it now fail.",
  );
  await accessibleInBothSchemes(page, "the form with a broken dependent");
  await alert.getByRole("link", { name: "Open yell's page" }).click();
  await expect(page.getByRole("heading", { name: "yell" })).toBeVisible();
  await expect(page.getByTestId("tool-relations")).toHaveText(/^Used by\s*hail$/);
  // hail was made through the API: its uses name a library tool, found as a call would find it.
  await page.getByTestId("tool-relations").getByRole("link", { name: "hail" }).click();
  await expect(page.getByRole("heading", { name: "hail" })).toBeVisible();
  await expect(page.getByTestId("tool-relations").getByRole("link", { name: "yell" })).toBeVisible();
});
