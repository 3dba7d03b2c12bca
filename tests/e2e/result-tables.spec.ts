import { expect, expectAccessible, focusedName, sendMessage, snapshot, tabTo, test } from "./fixtures";

const CITY_TEMPS = `function run() {
  return [
    { city: "Oslo", temp: 3 },
    { city: "Rome", temp: 14 },
    { city: "Lima", temp: 19 },
  ];
}`;

for (const colorScheme of ["light", "dark"] as const) {
  test(`a result that is a list of records shows as a table, its JSON a toggle away (${colorScheme}, 390 px, keyboard only)`, async ({
    page,
    servers,
  }) => {
    const prompt = `How warm are my cities (${colorScheme})?`;
    servers.model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "city_temps",
              description: "Today's temperature in each city.",
              parameters_schema: { type: "object" },
              code: CITY_TEMPS,
            },
          },
        ],
      },
      { toolCalls: [{ name: "city_temps", args: {} }] },
      { text: "Lima is the warmest." },
    ]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
    await page.getByRole("button", { name: "Open the reasoning panel" }).focus();
    await page.keyboard.press("Enter");

    const card = page.locator('[data-testid="tool-call"][data-tool="city_temps"]');
    const table = card.getByRole("table", { name: "Output of the city_temps call" });
    await expect(table).toBeVisible();
    await expect(table.getByRole("columnheader")).toHaveText(["city", "temp"]);
    const rows = table.getByRole("row");
    await expect(rows).toHaveCount(4);
    await expect(rows.nth(1).getByRole("cell")).toHaveText(["Oslo", "3"]);
    await expect(rows.nth(2).getByRole("cell")).toHaveText(["Rome", "14"]);
    await expect(rows.nth(3).getByRole("cell")).toHaveText(["Lima", "19"]);
    // Numbers line up on the right.
    await expect(rows.nth(1).getByRole("cell").nth(1)).toHaveCSS("text-align", "right");
    // The table scrolls in its card; the page does not scroll sideways at 390 px.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await table.scrollIntoViewIfNeeded();
    await snapshot(page, `result-table-${colorScheme}`);
    await expectAccessible(page, `a tool card with a table (${colorScheme}, 390 px)`);

    // By keyboard: the table is a stop of its own, to scroll; then the toggle shows the JSON, and back.
    await tabTo(page, /^Output of the city_temps call$/);
    await tabTo(page, /^JSON$/);
    const tableButton = card.getByRole("button", { name: "Table", exact: true });
    const jsonButton = card.getByRole("button", { name: "JSON", exact: true });
    await expect(tableButton).toHaveAttribute("aria-pressed", "true");
    await expect(jsonButton).toHaveAttribute("aria-pressed", "false");
    await page.keyboard.press("Enter");
    await expect(jsonButton).toHaveAttribute("aria-pressed", "true");
    await expect(jsonButton).toBeFocused();
    await expect(table).toHaveCount(0);
    const json = card.getByLabel("Output", { exact: true });
    await expect(json).toContainText('"city": "Oslo"');
    await expect(json).toContainText('"temp": 19');
    await expectAccessible(page, `a tool card's table as JSON (${colorScheme}, 390 px)`);

    await page.keyboard.press("Shift+Tab");
    expect(await focusedName(page)).toBe("Table");
    await page.keyboard.press("Space");
    await expect(tableButton).toHaveAttribute("aria-pressed", "true");
    await expect(table.getByRole("columnheader")).toHaveText(["city", "temp"]);
    await expect(json).toHaveCount(0);
  });
}
