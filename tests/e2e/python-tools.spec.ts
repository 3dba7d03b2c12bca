import type { Locator, Page } from "@playwright/test";
import { GenerationEvent } from "@/lib/contract/generation";
import { expect, expectAccessible, sendMessage, snapshot, test } from "./fixtures";

const TEXT = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const SHOUT_PY = 'def run(inputs):\n    """Upper-case a text."""\n    return inputs["text"].upper()';
const WHISPER_PY = 'def run(inputs):\n    return inputs["text"].lower()';
const ENV_PY = "import os\n\ndef run(inputs):\n    return dict(os.environ)";

/** Highlighted as Python: its keywords and its function's name in highlight.js's classes, which JavaScript's lack. */
async function expectPython(code: Locator) {
  await expect(code.locator(".hljs-keyword").filter({ hasText: /^def$/ })).toHaveCount(1);
  await expect(code.locator(".hljs-title.function_")).toHaveText("run");
}

/** The Code section of a tool's page. */
const codeSection = (page: Page) => page.getByRole("region", { name: "Code", exact: true });

for (const colorScheme of ["light", "dark"] as const) {
  test(`Python tools in the ${colorScheme} scheme: labelled and highlighted on their cards, the Tools tab and the tool's page`, async ({
    page,
    servers,
  }) => {
    const prompt = `Make Python tools (${colorScheme}).`;
    const tool = (name: string, fields: Record<string, unknown>) => ({
      name: "register_tool",
      args: { name, description: `${name}, for a text.`, parameters_schema: TEXT, ...fields },
    });
    servers.model.script(prompt, [
      {
        toolCalls: [
          // both forms of a Python registration: the PR's python_code, and code with its language
          tool("shout_py", { python_code: SHOUT_PY, examples: [{ input: { text: "hi" }, expected_output: "HI" }] }),
          tool("whisper_py", { code: WHISPER_PY, language: "python" }),
          tool("env_py", { python_code: ENV_PY }),
          tool("shout_js", { code: "function run({ text }) {\n  return text.toUpperCase();\n}" }),
        ],
      },
      { text: "Made them." },
    ]);
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");

    const card = (name: string) => page.getByRole("region", { name: `Tool registered: ${name}` });
    for (const name of ["shout_py", "whisper_py"]) {
      await expect(card(name).getByTestId("tool-language")).toHaveText("Language: Python");
    }
    await expect(card("shout_js").getByTestId("tool-language")).toHaveText("Language: JavaScript");
    await card("shout_py").getByText("Show code").click();
    await expectPython(card("shout_py").getByLabel("python code"));
    await card("shout_js").getByText("Show code").click();
    await expect(card("shout_js").getByLabel("javascript code")).toBeVisible();

    // refused by the policy: still Python, its import marked
    const rejected = page.getByRole("region", { name: "Tool rejected: env_py" });
    await expect(rejected.getByTestId("tool-language")).toHaveText("Language: Python");
    const refusedCode = rejected.getByLabel("python code");
    await expect(refusedCode.locator("[data-marked]").first()).toContainText("import os");
    await expect(refusedCode.locator(".hljs-keyword").filter({ hasText: /^import$/ })).toHaveCount(1);
    await card("shout_py").scrollIntoViewIfNeeded();
    await snapshot(page, `python-cards-${colorScheme}`);
    await expectAccessible(page, `a conversation with Python tool cards (${colorScheme})`);

    await page.getByRole("tab", { name: /Tools/ }).click();
    const listed = page.getByRole("list", { name: "Registered tools" }).getByRole("listitem");
    await expect(listed.filter({ hasText: "whisper_py" }).getByTestId("tool-language")).toHaveText("Language: Python");
    await expectAccessible(page, `the Tools tab with Python tools (${colorScheme})`);

    await listed.getByRole("link", { name: "Open shout_py's page" }).click();
    await expect(page.getByRole("heading", { name: "shout_py" })).toBeVisible();
    await expect(page.getByTestId("tool-language")).toHaveText("Language: Python");
    await expectPython(codeSection(page).getByLabel("python code"));
    await expectAccessible(page, `a Python tool's page (${colorScheme})`);
  });
}

test("a Python tool added through the API is labelled in the library and on its page, and runs there", async ({
  page,
}) => {
  await page.goto("/tools");
  const created = await page.request.post("/api/tools", {
    data: {
      name: "reverse_words_py",
      description: "Reverse the order of the words of a text.",
      parameters_schema: TEXT,
      code: 'def run(inputs):\n    return " ".join(reversed(inputs["text"].split()))',
      language: "python",
    },
  });
  expect(created.status()).toBe(201);
  expect((await created.json()).language).toBe("python");

  await page.goto("/tools");
  const listed = page.getByTestId("library-tools").getByRole("listitem").filter({ hasText: "reverse_words_py" });
  await expect(listed).toContainText("v1 · Python ·");
  await listed.getByRole("link").click();
  await expect(page.getByRole("heading", { name: "reverse_words_py" })).toBeVisible();
  await expect(page.getByTestId("tool-language")).toHaveText("Language: Python");
  await expectPython(codeSection(page).getByLabel("python code"));
  await page.getByLabel(/^text/).fill("one two three");
  await page.getByRole("button", { name: "Run" }).click();
  await expect(page.getByTestId("run-result")).toContainText("three two one");
});

test("Create from description writes a Python tool when Python is picked, and opens its page", async ({
  page,
  servers,
}) => {
  const description = "Reverse a text, in Python.";
  servers.model.script(description, [
    {
      toolCalls: [
        {
          name: "write_tool",
          args: {
            name: "reverse_text",
            description: "Reverse a text.",
            parameters_schema: TEXT,
            code: 'def run(inputs):\n    return inputs["text"][::-1]',
            examples: [{ input: { text: "abc" }, expected_output: "cba" }],
          },
        },
      ],
    },
  ]);
  await page.goto("/tools");
  await page.getByRole("button", { name: "Create from description" }).click();
  await page.getByLabel("Description", { exact: true }).fill(description);
  await page.getByRole("radio", { name: "Python" }).check();
  const sent = page.waitForRequest("**/api/tools/generate");
  await page.getByRole("button", { name: "Write the tool" }).click();
  expect((await sent).postDataJSON()).toEqual({ description, language: "python" });

  await page.waitForURL(/\/tools\/[^/]+$/);
  await expect(page.getByRole("heading", { name: "reverse_text" })).toBeVisible();
  await expect(page.getByTestId("tool-language")).toHaveText("Language: Python");
  await expectPython(codeSection(page).getByLabel("python code"));
});

/** One attempt at a Python tool that the policy refuses, as POST /api/tools/generate streams it. */
function refusedPythonAttempt(description: string): unknown[] {
  const violations = [{ line: 1, column: 1, message: "import of os is not allowed" }];
  const events = [
    { type: "attempt_started", attempt: 1, of: 1 },
    {
      type: "attempt_written",
      attempt: 1,
      tool: {
        name: "env_py",
        description,
        parameters_schema: { type: "object" },
        code: ENV_PY,
        language: "python",
        examples: [{ input: {}, expected_output: {} }],
      },
    },
    { type: "attempt_failed", attempt: 1, problem: "policy", message: violations[0].message, violations },
    {
      type: "generation_failed",
      status: 422,
      body: {
        error: { code: "tool_refused", message: "No tool passed its checks in 1 attempt." },
        attempts: 1,
        violations,
      },
    },
  ];
  // The stand-in answer holds to the contract, so the form is shown what a server sends.
  for (const event of events) GenerationEvent.parse(event);
  return events;
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`Create from description in the ${colorScheme} scheme: the language is picked from the keyboard, sent, and the attempt's Python highlighted`, async ({
    page,
  }) => {
    const description = `Read the environment, in Python (${colorScheme}).`;
    // The form's own part: what it sends and how it shows the answer (the writing itself is the test above's).
    const bodies: unknown[] = [];
    await page.route("**/api/tools/generate", async (route) => {
      bodies.push(route.request().postDataJSON());
      await route.fulfill({
        status: 200,
        contentType: "text/event-stream",
        body: refusedPythonAttempt(description)
          .map((event, index) => `id: ${index + 1}\ndata: ${JSON.stringify(event)}\n\n`)
          .join(""),
      });
    });
    await page.emulateMedia({ colorScheme });
    await page.goto("/tools");
    await page.getByRole("button", { name: "Create from description" }).click();

    // Keyboard only: the description has the focus, then the name, then the language, JavaScript first.
    await expect(page.getByLabel("Description", { exact: true })).toBeFocused();
    await page.keyboard.type(description);
    await page.keyboard.press("Tab");
    await expect(page.getByLabel("Name (optional)")).toBeFocused();
    await page.keyboard.press("Tab");
    const language = page.getByRole("radiogroup", { name: "Language" });
    await expect(language.getByRole("radio", { name: "JavaScript" })).toBeFocused();
    await expect(language.getByRole("radio", { name: "JavaScript" })).toBeChecked();
    await page.keyboard.press("ArrowDown");
    await expect(language.getByRole("radio", { name: "Python" })).toBeChecked();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Write the tool" })).toBeFocused();
    await page.keyboard.press("Enter");

    await expect(page.getByRole("alert").filter({ hasText: "No tool passed its checks" })).toBeVisible();
    expect(bodies).toEqual([{ description, language: "python" }]);
    const code = page.getByTestId("generation-attempt").getByLabel("python code");
    await expect(code.locator("[data-marked]")).toContainText("import os");
    await expect(code.locator(".hljs-keyword").filter({ hasText: /^(import|def)$/ })).toHaveText(["import", "def"]);
    // the choice stays for the next try
    await expect(language.getByRole("radio", { name: "Python" })).toBeChecked();
    await snapshot(page, `python-generate-form-${colorScheme}`);
    await expectAccessible(page, `the form with a Python attempt (${colorScheme})`);

    // JavaScript, the default, is sent as before there was a choice: without a language
    await language.getByRole("radio", { name: "JavaScript" }).check();
    await page.getByRole("button", { name: "Write the tool" }).click();
    await expect.poll(() => bodies.length).toBe(2);
    expect(bodies[1]).toEqual({ description });
  });
}
