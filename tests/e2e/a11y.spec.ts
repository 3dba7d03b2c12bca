import { FAILURES_SCRIPT } from "../support/trace-scripts";
import { expect, expectAccessible, sendMessage, test } from "./fixtures";

const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 375]) {
    test(`WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px: home, cards, Tools tab, share dialog, shared page`, async ({
      page,
      servers,
    }) => {
      const narrow = width < 1024;
      const prompt = `Check accessibility (${colorScheme}, ${width}).`;
      servers.model.script(prompt, [
        {
          text: "I will build a tool.",
          toolCalls: [
            { name: "think", args: { thought: "Write shout and whisper.\nEach with an example." } },
            {
              name: "register_tool",
              args: {
                name: "shout",
                description: "Upper-case a text.",
                parameters_schema: SCHEMA,
                code: "function run({ text }) {\n  return text.toUpperCase();\n}",
                examples: [{ input: { text: "hi" }, expected_output: "HI" }],
              },
            },
            {
              name: "register_tool",
              args: {
                name: "whisper",
                description: "Lower-case a text.",
                parameters_schema: SCHEMA,
                code: "function run({ text }) {\n  return text.toLowerCase();\n}",
                examples: [
                  { input: { text: "Hi" }, expected_output: "hi" },
                  { input: { text: "HI" }, expected_output: "hi…" },
                ],
              },
            },
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
        { toolCalls: [{ name: "shout", args: { text: "hello" } }] },
        { text: "Done: **HELLO**.\n\n```js\nconst answer = 'HELLO';\n```" },
      ]);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });

      await page.goto("/");
      await expectAccessible(page, "home");

      await sendMessage(page, prompt);
      await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
      if (narrow) await page.getByRole("button", { name: "Open the reasoning panel" }).click();
      await page.getByTestId("tool-registered").getByText("Show code").click();
      // one refused by the code policy, one by its examples
      await expect(page.getByTestId("tool-rejected")).toHaveCount(2);
      await expect(page.getByTestId("plan")).toBeVisible();
      await expectAccessible(page, "a conversation with plan, registered and rejected tool cards");

      await page.getByRole("tab", { name: /Tools/ }).click();
      await expectAccessible(page, "the Tools tab");
      if (narrow) await page.getByRole("button", { name: "Close the reasoning panel" }).click();

      await page.getByRole("button", { name: "Share", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Share this conversation" });
      await dialog.getByRole("button", { name: "Create link" }).click();
      const url = await dialog.getByTestId("share-url").inputValue();
      await expectAccessible(page, "the share dialog");
      await page.keyboard.press("Escape");

      await page.goto(url);
      await expect(page.getByTestId("shared-banner")).toBeVisible();
      if (narrow) await page.getByRole("button", { name: "Open the reasoning panel" }).click();
      await expectAccessible(page, "a shared page");
    });
  }
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 375]) {
    test(`WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px: tool library, a tool's page, settings, audit log`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.goto("/tools");
      const definition = {
        name: "shout",
        description: "Upper-case a text.",
        parameters_schema: SCHEMA,
        code: "function run({ text }) {\n  return text.toUpperCase();\n}",
      };
      const created = await page.request.post("/api/tools", { data: definition });
      const { id } = await created.json();
      await page.request.post("/api/tools", {
        data: { ...definition, code: "function run({ text }) {\n  return text.toUpperCase() + '!';\n}" },
      });
      await page.request.post(`/api/tools/${id}/execute`, { data: { input: { text: "hi" } } });

      await page.goto("/tools");
      await expect(page.getByTestId("library-tools")).toContainText("shout");
      await expectAccessible(page, "the tool library");
      await page.goto(`/tools/${id}`);
      await page.getByLabel(/^text/).fill("hello");
      await page.getByRole("button", { name: "Run" }).click();
      await expect(page.getByTestId("run-result")).toContainText("HELLO!");
      await page.getByRole("button", { name: "Keep as example" }).first().click();
      await page.getByRole("button", { name: "Run examples" }).click();
      await expect(page.getByTestId("example-run")).toContainText("Passed");
      await expectAccessible(page, "a tool's page");
      await page.goto("/settings");
      await page.getByLabel("Name", { exact: true }).fill("a11y");
      await page.getByRole("button", { name: "Create token" }).click();
      await expect(page.getByTestId("new-token")).toHaveValue(/^tsk_/);
      await expectAccessible(page, "the settings page");
      await page.goto("/audit");
      await expect(page.getByTestId("audit-entries")).toContainText("shout");
      await page.getByLabel("Outcome").selectOption("failed");
      await expect(page.getByText("No tool calls match.")).toBeVisible();
      await page.getByLabel("Outcome").selectOption("succeeded");
      await expect(page.getByTestId("audit-entries").locator("tbody tr")).toHaveCount(2);
      await expectAccessible(page, "the audit log");
    });
  }
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`WCAG 2.1 AA in the ${colorScheme} scheme: the tool library's form, with the attempts of a tool never written`, async ({
    page,
    servers,
  }) => {
    const description = `Upper-case a text, never right (${colorScheme}).`;
    const written = (code: string) => ({
      name: "shout",
      description: "Upper-case a text.",
      parameters_schema: SCHEMA,
      code,
      examples: [{ input: { text: "hi" }, expected_output: "HI" }],
    });
    // Every way an attempt fails: the code policy, an example, an answer that is no definition.
    servers.model.script(description, [
      { toolCalls: [{ name: "write_tool", args: written("function run() {\n  return process.env;\n}") }] },
      { toolCalls: [{ name: "write_tool", args: written("function run({ text }) {\n  return text;\n}") }] },
      { toolCalls: [{ name: "write_tool", args: { name: "shout" } }] },
    ]);
    await page.emulateMedia({ colorScheme });
    await page.goto("/tools");
    await page.getByRole("button", { name: "Create from description" }).click();
    await page.getByLabel("Description", { exact: true }).fill(description);
    await page.getByRole("button", { name: "Write the tool" }).click();
    await expect(page.getByRole("alert").filter({ hasText: "No tool passed its checks" })).toBeVisible();
    await expect(page.getByTestId("attempt-failure")).toHaveCount(3);
    await expectAccessible(page, "the tool library's form, after three failed attempts");
  });
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 375]) {
    test(`WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px: the trace toolbar with a filter, a search and a failure gone to`, async ({
      page,
      servers,
    }) => {
      const prompt = `Find things accessibly (${colorScheme}, ${width}).`;
      servers.model.script(prompt, FAILURES_SCRIPT);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      await sendMessage(page, prompt);
      await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
      if (width < 1024) await page.getByRole("button", { name: "Open the reasoning panel" }).click();
      const toolbar = page.getByRole("search", { name: "Find in the trace" });
      await toolbar.getByRole("combobox", { name: "Show" }).selectOption("errors");
      await toolbar.getByRole("searchbox", { name: "Search the trace" }).fill("calculate");
      await expect(toolbar.getByTestId("match-count")).toHaveText("1 of 2");
      await toolbar.getByRole("button", { name: "Next failure" }).click();
      await expect(page.locator('[data-find-card][aria-current="true"]')).toBeVisible();
      await expectAccessible(page, "the trace with the toolbar, errors only, a search and the current failure");
    });
  }
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 375]) {
    test(`WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px: compare runs, owned and shared, and a failed continue`, async ({
      page,
      servers,
    }) => {
      const first = `Compare me first (${colorScheme}, ${width}).`;
      const second = `Compare me second (${colorScheme}, ${width}).`;
      servers.model.script(first, [
        { toolCalls: [{ name: "think", args: { thought: "One and one." } }] },
        { text: "Two." },
      ]);
      servers.model.script(second, [
        { toolCalls: [{ name: "think", args: { thought: "Two and two." } }] },
        { text: "Four." },
      ]);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.goto("/");
      await sendMessage(page, first);
      await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
      await sendMessage(page, second);
      await expect(page.getByTestId("assistant-message")).toHaveCount(2);
      await expect(page.getByTestId("assistant-message").last()).toHaveAttribute("data-run-status", "completed");

      const conversation = new URL(page.url()).pathname;
      await page.goto(`${conversation}/compare`);
      await expect(page.getByTestId("compare-summary")).toBeVisible();
      await expect(page.locator("mark").first()).toBeVisible();
      await expectAccessible(page, "the compare page");

      await page.goto(conversation);
      await page.getByRole("button", { name: "Share", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Share this conversation" });
      await dialog.getByRole("button", { name: "Create link" }).click();
      const url = await dialog.getByTestId("share-url").inputValue();
      await page.goto(`${url}/compare`);
      await expect(page.getByTestId("compare-summary")).toBeVisible();
      await expectAccessible(page, "the compare page of a shared conversation");

      // A continue that fails says why, next to its button.
      await page.goto(conversation);
      if (width < 1024) await page.getByRole("button", { name: "Open the reasoning panel" }).click();
      await page.route("**/fork", (route) =>
        route.fulfill({ status: 429, contentType: "application/json", body: '{"error":{"message":"Slow down."}}' }),
      );
      await page.getByRole("button", { name: "Continue from step 1" }).first().click();
      await expect(page.getByRole("alert").filter({ hasText: "Slow down." })).toBeVisible();
      await expectAccessible(page, "a card whose continue failed");
    });
  }
}
