import type { Page } from "@playwright/test";
import { freePort, scriptedApp, type AppServer } from "../support/app-server";
import { startEverythingHttp } from "../support/mcp-servers";
import { ModelServer } from "../support/model-server";
import { expect, expectAccessible, test as appTest } from "./fixtures";

/** An app of its own, where a person's MCP server may be on loopback (an intranet's, in real use). */
const test = appTest.extend<object, { mcpApp: AppServer }>({
  mcpApp: [
    async ({}, provide) => {
      const model = new ModelServer();
      await model.start();
      const app = scriptedApp(model.url, { TOOLSMITH_MCP_PRIVATE_HOSTS: "127.0.0.1" });
      await app.start();
      await provide(app);
      await app.stop();
      await model.stop();
    },
    { scope: "worker" },
  ],
  baseURL: async ({ mcpApp }, provide) => provide(mcpApp.url),
});

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
      // Nothing listens there: adding it connects to it, which is refused, and it is kept with why.
      const url = `http://127.0.0.1:${await freePort()}/mcp`;

      await page.getByLabel("Server name").focus();
      await page.keyboard.type("tickets");
      await tab(page, "Server URL");
      await page.keyboard.type(url);
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
      await expect(item).toContainText(url);
      await expect(item).toContainText("Sends a bearer token, X-Api-Key");
      const refused = `MCP server "tickets" refused the connection (nothing listens there) (${url}).`;
      await expect(item.getByTestId("mcp-server-status")).toHaveText(`Could not connect: ${refused}`);
      await expect(
        page.getByRole("status").filter({ hasText: `Added tickets. It could not connect: ${refused}` }),
      ).toBeAttached();
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

test("an MCP server's connection in Settings: connected with its tools, why not once it is down, and Refresh, by keyboard", async ({
  page,
}) => {
  let server = await startEverythingHttp();
  const port = Number(new URL(server.url).port);
  try {
    await page.goto("/settings");
    await page.getByLabel("Server name").fill("everything");
    await page.getByLabel("Server URL").fill(server.url);
    await page.getByLabel("Server URL").press("Enter");
    const status = page.getByTestId("mcp-server").filter({ hasText: "everything" }).getByTestId("mcp-server-status");
    await expect(status).toContainText("Connected");
    await expect(status).toContainText(/\d+ tools: .*\becho\b.*\bget-sum\b/);
    await expect(
      page.getByRole("status").filter({ hasText: /^Added everything\. Connected, \d+ tools\.$/ }),
    ).toBeAttached();
    await expectAccessible(page, "the settings page with a connected MCP server");

    await server.stop();
    const refresh = page.getByRole("button", { name: "Refresh everything" });
    await refresh.focus();
    await page.keyboard.press("Enter");
    const refused = `MCP server "everything" refused the connection (nothing listens there) (${server.url}).`;
    await expect(status).toHaveText(`Could not connect: ${refused}`);
    await expect(refresh).toBeFocused();
    await expect(
      page.getByRole("status").filter({ hasText: `Refreshed everything. It could not connect: ${refused}` }),
    ).toBeAttached();
    await expectAccessible(page, "the settings page with an MCP server that is down");
    // The page's list says what this instance knows: the same.
    await page.reload();
    await expect(status).toHaveText(`Could not connect: ${refused}`);

    server = await startEverythingHttp(port);
    await refresh.focus();
    await page.keyboard.press("Enter");
    await expect(status).toContainText("Connected");
    await expect(status).toContainText("echo");
    await expect(refresh).toBeFocused();
    await expectAccessible(page, "the settings page with an MCP server connected again");

    await page.getByRole("button", { name: "Remove everything" }).press("Enter");
    await expect(page.getByText("No MCP servers yet.")).toBeVisible();
  } finally {
    await server.stop();
  }
});
