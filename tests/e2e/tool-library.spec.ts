import { expect, sendMessage, snapshot, test } from "./fixtures";

test("a tool added to the library from its card has a page: run it from its form, watch its statistics, see its versions", async ({
  page,
  servers,
}) => {
  const prompt = "Make a greeting tool, then a better one.";
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", description: "Who to greet" },
      times: { type: "integer" },
      loud: { type: "boolean" },
    },
    required: ["name"],
  };
  const register = (code: string) => ({
    name: "register_tool",
    args: { name: "greet", description: "Greet someone.", parameters_schema: schema, code },
  });
  servers.model.script(prompt, [
    { toolCalls: [register("function run({ name }) {\n  return 'Hello ' + name;\n}")] },
    {
      toolCalls: [
        register(
          "function run({ name, times = 1, loud }) {\n  const text = ('Hello ' + name + '! ').repeat(times).trim();\n  return loud ? text.toUpperCase() : text;\n}",
        ),
      ],
    },
    { toolCalls: [{ name: "greet", args: { name: "chat" } }] },
    { text: "Greeted." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  const card = page.getByTestId("tool-registered").last();
  await card.getByRole("button", { name: /Add to library/ }).click();
  await expect(card.getByRole("status")).toHaveText("In the library");
  await card.getByRole("link", { name: "Open greet's page" }).click();

  await expect(page.getByRole("heading", { name: "greet" })).toBeVisible();
  await expect(page.getByTestId("tool-scope")).toHaveText("In the library");
  await expect(page.getByTestId("stat-calls")).toHaveText("1");
  // One call is nothing to compare: no chart of a lone bar under the statistics.
  await expect(page.getByTestId("tool-stats")).toBeVisible();
  await expect(page.getByTestId("duration-chart")).toHaveCount(0);
  await expect(page.getByTestId("version-diff")).toContainText("+   const text");

  await page.getByLabel(/^name/).fill("Ada");
  await page.getByLabel(/^times/).fill("2");
  await page.getByLabel(/^loud/).check();
  await page.getByRole("button", { name: "Run" }).click();
  await expect(page.getByTestId("run-result")).toContainText("HELLO ADA! HELLO ADA!");
  await expect(page.getByTestId("stat-calls")).toHaveText("2");
  await expect(page.getByTestId("tool-executions").locator("tbody tr")).toHaveCount(2);
  await expect(page.getByTestId("duration-chart").locator("rect")).toHaveCount(2);
  await snapshot(page, "11-tool-page");

  await page.getByRole("link", { name: "Tool library" }).first().click();
  await expect(page.getByTestId("library-tools")).toContainText("greet");
  await page.getByRole("searchbox").fill("nothing like it");
  await expect(page.getByTestId("library-tools")).toHaveCount(0);
  await page.getByRole("searchbox").fill("GREET");
  await expect(page.getByTestId("library-tools").getByRole("link")).toHaveCount(1);
});

test("the API reference renders at /docs, and API tokens are made and revoked on the settings page", async ({
  page,
}) => {
  await page.goto("/settings");
  await page.getByLabel("Name", { exact: true }).fill("e2e script");
  await page.getByRole("button", { name: "Create token" }).click();
  const token = await page.getByTestId("new-token").inputValue();
  expect(token).toMatch(/^tsk_/);
  const viaToken = await page.request.get("/api/tools", { headers: { authorization: `Bearer ${token}` } });
  expect(viaToken.status()).toBe(200);
  await page.getByRole("button", { name: "Revoke e2e script" }).click();
  await expect(page.getByTestId("api-tokens")).toHaveCount(0);
  expect((await page.request.get("/api/tools", { headers: { authorization: `Bearer ${token}` } })).status()).toBe(401);

  await page.goto("/docs");
  await expect(page.getByRole("heading", { name: /^Toolsmith API/ })).toBeVisible();
  await expect(page.getByText("/api/tools/{id}/execute").first()).toBeVisible();
});
