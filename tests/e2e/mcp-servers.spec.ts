import type { Page } from "@playwright/test";
import { expect, expectAccessible, test } from "./fixtures";

/** The focused element's accessible name: its label's text, its aria-label, else its own text. */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLInputElement | null;
    return (
      element?.labels?.[0]?.innerText?.trim() ?? element?.getAttribute("aria-label") ?? element?.innerText?.trim() ?? ""
    );
  });

/** Tab once, and say where the focus landed: each stop of the form in order, as a keyboard user meets them. */
async function tab(page: Page, expected: string | RegExp) {
  await page.keyboard.press("Tab");
  expect(await focusedName(page)).toMatch(expected);
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 390]) {
    test(`MCP servers on the settings page, by keyboard, WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.goto("/settings");
      await expect(page.getByText("No MCP servers yet.")).toBeVisible();

      await page.getByLabel("Server name").focus();
      await page.keyboard.type("tickets");
      await tab(page, "Server URL");
      await page.keyboard.type("https://tickets.example.com/mcp");
      await tab(page, "Bearer token (optional)");
      await page.keyboard.type("a-secret-token");
      await tab(page, "Add a header");
      await page.keyboard.press("Enter");
      // The new row's name field takes the focus.
      expect(await focusedName(page)).toBe("Header 1 name");
      await page.keyboard.type("X-Api-Key");
      await tab(page, "Header 1 value");
      await page.keyboard.type("a-secret-key");
      await tab(page, "Remove header 1");
      await tab(page, "Add a header");
      await tab(page, "Add server");
      await page.keyboard.press("Enter");

      const item = page.getByTestId("mcp-server");
      await expect(item).toHaveCount(1);
      await expect(item).toContainText("tickets");
      await expect(item).toContainText("https://tickets.example.com/mcp");
      await expect(item).toContainText("Sends a bearer token, X-Api-Key");
      await expect(page.getByRole("status").filter({ hasText: "Added tickets." })).toBeAttached();
      // The secrets never come back to the page.
      expect(await page.content()).not.toMatch(/a-secret-(token|key)/);
      await expectAccessible(page, "the settings page with an MCP server");

      // The same name again: the server's sentence, announced.
      await page.getByLabel("Server name").focus();
      await page.keyboard.type("tickets");
      await tab(page, "Server URL");
      await page.keyboard.type("https://other.example.com/mcp");
      await page.keyboard.press("Enter");
      await expect(page.getByRole("alert").filter({ hasText: "MCP server" })).toHaveText(
        'You already have an MCP server named "tickets"; remove it first, or choose another name.',
      );
      await expectAccessible(page, "the settings page with a refused MCP server");

      await page.getByRole("button", { name: "Remove tickets" }).focus();
      await page.keyboard.press("Enter");
      await expect(page.getByText("No MCP servers yet.")).toBeVisible();
      await expect(page.getByRole("heading", { name: "MCP servers" })).toBeFocused();
      await expect(page.getByRole("status").filter({ hasText: "Removed tickets." })).toBeAttached();
      expect(await (await page.request.get("/api/mcp-servers")).json()).toEqual([]);
      await expectAccessible(page, "the settings page after removing an MCP server");
    });
  }
}
