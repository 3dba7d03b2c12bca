import { expect, sendMessage, snapshot, test } from "./fixtures";

const CELSIUS = {
  type: "object",
  properties: { c: { type: "number", description: "Degrees Celsius" } },
  required: ["c"],
};

/** celsius_to_fahrenheit as the model writes it, with `code` and the examples it must pass. */
const converter = (code: string) => ({
  name: "celsius_to_fahrenheit",
  description: "Convert a temperature from Celsius to Fahrenheit.",
  parameters_schema: CELSIUS,
  code,
  examples: [
    { input: { c: 100 }, expected_output: 212 },
    { input: { c: 36.6 }, expected_output: 97.88 },
  ],
});
const FORGETS_32 = "function run({ c }) {\n  return c * 9 / 5;\n}";
const CONVERTS = "function run({ c }) {\n  return c * 9 / 5 + 32;\n}";

test("a tool written from a description streams each attempt, the failed example, then the repair, and opens the new tool", async ({
  page,
  servers,
}) => {
  const description = "Convert a temperature from Celsius to Fahrenheit (streamed attempts).";
  servers.model.script(description, [
    { toolCalls: [{ name: "write_tool", args: converter(FORGETS_32) }] },
    // The repair takes a while, so that the first attempt can be looked at while the second is written.
    {
      text: "Adding the 32 the formula needs.",
      chunkSize: 1,
      delayMs: 100,
      toolCalls: [{ name: "write_tool", args: converter(CONVERTS) }],
    },
  ]);
  await page.goto("/tools");
  await page.getByRole("button", { name: "Create from description" }).click();
  await page.getByLabel("Description", { exact: true }).fill(description);
  await page.getByRole("button", { name: "Write the tool" }).click();

  const attempts = page.getByTestId("generation-attempt");
  const first = attempts.first();
  await expect(first.getByRole("heading")).toHaveText("Attempt 1 of 3");
  await expect(first.getByLabel("javascript code")).toContainText("return c * 9 / 5;");
  await expect(first.getByTestId("attempt-failure")).toContainText("Its examples failed");
  const boiling = first.getByRole("listitem").filter({ hasText: '{"c":100}' });
  await expect(boiling).toContainText("Failed");
  await expect(boiling.getByRole("definition")).toHaveText(['{"c":100}', "212", "180"]);
  await expect(attempts.nth(1).getByRole("heading")).toHaveText("Attempt 2 of 3");
  await expect(page.getByTestId("generation-status")).toHaveText("Attempt 2 of 3: the model is writing the tool…");
  await snapshot(page, "20-generating-a-tool");

  await page.waitForURL(/\/tools\/[^/]+$/);
  await expect(page.getByRole("heading", { name: "celsius_to_fahrenheit" })).toBeVisible();
  await expect(page.getByTestId("examples")).toContainText('{"c":100} → gives 212');
  await expect(page.getByTestId("examples").getByRole("img", { name: "Passed" })).toHaveCount(2);
  await expect(page.getByTestId("untested")).toHaveCount(0);
});

test("a tool written from a description that no attempt gets right leaves the form, the attempts and the reason", async ({
  page,
  servers,
}) => {
  const description = "Convert Celsius to Fahrenheit, never right.";
  // A name asked for is part of what the model is told.
  servers.model.script(`${description}\n\nName the tool c_to_f.`, [
    { toolCalls: [{ name: "write_tool", args: converter("function run({ c }) {\n  return process.env.C;\n}") }] },
    { toolCalls: [{ name: "write_tool", args: converter(FORGETS_32) }] },
    { toolCalls: [{ name: "write_tool", args: converter(FORGETS_32) }] },
  ]);
  await page.goto("/tools");
  await page.getByRole("button", { name: "Create from description" }).click();
  await page.getByLabel("Description", { exact: true }).fill(description);
  await page.getByLabel("Name (optional)").fill("c_to_f");
  await page.getByRole("button", { name: "Write the tool" }).click();

  await expect(page.getByRole("alert").filter({ hasText: "No tool passed its checks in 3 attempts" })).toBeVisible();
  const attempts = page.getByTestId("generation-attempt");
  await expect(attempts).toHaveCount(3);
  // the policy's violation, at its place, marked in the code
  await expect(attempts.first().getByTestId("attempt-failure")).toContainText(/2:\d+/);
  await expect(attempts.first().locator("[data-marked]")).toContainText("process.env.C");
  // the name asked for is the one the model's tool gets
  await expect(attempts.nth(2)).toContainText("c_to_f:");
  await expect(page.getByLabel("Description", { exact: true })).toHaveValue(description);
  await expect(page.getByRole("button", { name: "Write the tool" })).toBeVisible();
  expect(page.url()).toMatch(/\/tools$/);
});

test("an untested tool is marked so until a call is kept as its example, which Run examples then passes", async ({
  page,
}) => {
  await page.goto("/tools");
  const created = await page.request.post("/api/tools", {
    data: {
      name: "double_it",
      description: "Double a number.",
      parameters_schema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      code: "function run({ n }) {\n  return n * 2;\n}",
    },
  });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  expect((await page.request.post(`/api/tools/${id}/execute`, { data: { input: { n: 21 } } })).status()).toBe(200);

  await page.goto("/tools");
  const listed = page.getByTestId("library-tools").getByRole("listitem").filter({ hasText: "double_it" });
  await expect(listed.getByTestId("untested")).toHaveText("Untested");
  await listed.getByRole("link").click();
  await expect(page.getByRole("heading", { name: "double_it" })).toBeVisible();
  await expect(page.getByTestId("untested")).toHaveText("Untested");
  await expect(page.getByRole("button", { name: "Run examples" })).toHaveCount(0);

  await page.getByRole("button", { name: "Keep as example" }).click();
  await expect(page.getByRole("status").filter({ hasText: "as an example of v1" })).toBeVisible();
  await expect(page.getByTestId("untested")).toHaveCount(0);
  await expect(page.getByTestId("examples")).toHaveText('{"n":21} → gives 42');

  await page.getByRole("button", { name: "Run examples" }).click();
  await expect(page.getByTestId("example-run")).toContainText("The example passed on v1.");
  await expect(page.getByTestId("example-run").getByRole("listitem")).toContainText("Passed");
  await page.getByTestId("example-run").scrollIntoViewIfNeeded();
  await snapshot(page, "21-tool-examples");

  // the same input twice is refused, with the server's reason
  await page.getByRole("button", { name: "Keep as example" }).click();
  await expect(
    page.getByRole("alert").filter({ hasText: "The tool already has an example with this input." }),
  ).toBeVisible();

  await page.goto("/tools");
  await expect(listed).toBeVisible();
  await expect(listed.getByTestId("untested")).toHaveCount(0);
});

test("in a conversation, a registered tool's card lists its examples, and a rejected one shows the examples it failed", async ({
  page,
  servers,
}) => {
  const prompt = "Make a converter, checked by examples.";
  // Rounding passes the example of 100 °C, and fails a fever's.
  const rounds = "function run({ c }) {\n  return Math.round(c * 9 / 5 + 32);\n}";
  servers.model.script(prompt, [
    {
      toolCalls: [
        { name: "register_tool", args: converter(rounds) },
        { name: "register_tool", args: converter(CONVERTS) },
        {
          name: "register_tool",
          args: { ...converter("function run({ c }) {\n  return c;\n}"), name: "echo_celsius", examples: [] },
        },
      ],
    },
    { text: "Made it." },
  ]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

  const rejected = page.getByTestId("tool-rejected");
  const failed = rejected.getByRole("listitem").filter({ hasText: "Failed" });
  await expect(failed.getByRole("definition")).toHaveText(['{"c":36.6}', "97.88", "98"]);
  await expect(rejected.getByRole("listitem").filter({ hasText: "Passed" })).toContainText('{"c":100}');

  const registered = page.getByRole("region", { name: "Tool registered: celsius_to_fahrenheit" });
  await expect(registered.getByTestId("examples").getByRole("listitem")).toHaveText([
    '{"c":100} → gives 212',
    '{"c":36.6} → gives 97.88',
  ]);
  await expect(registered.getByTestId("untested")).toHaveCount(0);
  await rejected.scrollIntoViewIfNeeded();
  await snapshot(page, "22-example-cards");
  await expect(page.getByRole("region", { name: "Tool registered: echo_celsius" }).getByTestId("untested")).toHaveText(
    "Untested",
  );
});
