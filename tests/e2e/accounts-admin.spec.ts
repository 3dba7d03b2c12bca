import { test as base } from "@playwright/test";
import { expect, expectAccessible } from "./fixtures";
import { seedSignedIn } from "../support/accounts";
import { scriptedApp, type AppServer } from "../support/app-server";
import { freshDatabaseUrl } from "../support/database";
import { ModelServer } from "../support/model-server";

/** With accounts on: the share dialog's visibility choice and the admin's page, by keyboard, axe-clean. */
const databaseUrl = freshDatabaseUrl();
let app: AppServer;

const test = base.extend<object, { accountsApp: AppServer }>({
  accountsApp: [
    async ({}, provide) => {
      const model = new ModelServer();
      await model.start();
      app = scriptedApp(
        model.url,
        { TOOLSMITH_AUTH: "optional", TOOLSMITH_ADMIN_EMAILS: "boss@example.com" },
        databaseUrl,
      );
      await app.start();
      await provide(app);
      await app.stop();
      await model.stop();
    },
    { scope: "worker" },
  ],
  baseURL: async ({ accountsApp }, provide) => provide(accountsApp.url),
});

/** Sign the page's browser in as a seeded account: its session cookie, as sign-in sets it. */
async function signIn(page: import("@playwright/test").Page, email: string) {
  const { cookie } = await seedSignedIn(databaseUrl, email);
  const [name, value] = cookie.split("=");
  await page.context().addCookies([{ name, value, url: app.url }]);
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`share dialog's visibility and the admin page, keyboard only, ${colorScheme}, 390 px`, async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await signIn(page, "boss@example.com");
    await page.goto("/");
    const created = await page.request.post("/api/conversations", { data: {} });
    const { id } = await created.json();
    await page.goto(`/c/${id}`);
    await page.getByRole("button", { name: "Share" }).click();
    const dialog = page.getByRole("dialog", { name: "Share this conversation" });
    const members = dialog.getByRole("radio", { name: "Members of this server only" });
    await expect(dialog.getByRole("radio", { name: "Anyone with the link" })).toBeChecked();
    await dialog.getByRole("radio", { name: "Anyone with the link" }).focus();
    await page.keyboard.press("ArrowDown");
    await expect(members).toBeChecked();
    await page.keyboard.press("Tab");
    await expect(dialog.getByRole("button", { name: "Create link" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog.getByTestId("share-url")).toHaveValue(/\/s\//);
    await expectAccessible(page, "the share dialog with its visibility choice");
    const link = await (await page.request.get(`/api/conversations/${id}/share`)).json();
    expect(link.visibility).toBe("members");
    await page.keyboard.press("Escape");

    // Each scheme's run starts from a member who may use every profile.
    const { accountId } = await seedSignedIn(databaseUrl, "member@example.com");
    await page.request.put(`/api/admin/accounts/${accountId}/profiles`, { data: { profiles: null } });
    await page.goto("/tools");
    await page.getByRole("link", { name: "Admin" }).focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/\/admin$/);
    const account = page.getByRole("listitem").filter({ has: page.getByRole("group", { name: "member@example.com" }) });
    await account.getByRole("checkbox", { name: "Every profile" }).focus();
    await page.keyboard.press("Space");
    await expect(account.getByRole("checkbox", { name: "Every profile" })).not.toBeChecked();
    await account.getByRole("button", { name: "Save profiles" }).focus();
    await page.keyboard.press("Enter");
    await expect(account.getByRole("status")).toHaveText("Saved.");
    await expectAccessible(page, "the admin page");

    // An MCP server for everyone, by keyboard: added, shown, then read-only in a person's settings, then removed.
    const servers = page.getByRole("region", { name: "MCP servers for everyone" });
    await servers.getByLabel("Server name").focus();
    await page.keyboard.type(`wiki-${colorScheme}`);
    await page.keyboard.press("Tab");
    // Adding connects to it; a host under .internal is refused before any lookup, so nothing is dialled.
    await page.keyboard.type("https://wiki.example.internal/mcp");
    await page.keyboard.press("Tab");
    await page.keyboard.type("an-everyone-token");
    await page.keyboard.press("Enter");
    const item = servers.getByTestId("mcp-server");
    await expect(item).toHaveCount(1);
    await expect(item).toContainText(`wiki-${colorScheme}`);
    await expect(item).toContainText("for everyone");
    await expect(item).toContainText("Sends a bearer token");
    await expect(servers.getByRole("status").filter({ hasText: `Added wiki-${colorScheme}.` })).toBeAttached();
    expect(await page.content()).not.toContain("an-everyone-token");
    await expectAccessible(page, "the admin page with an MCP server for everyone");
    await page.goto("/settings");
    await expect(page.getByTestId("mcp-server")).toContainText("for everyone, read-only");
    await expect(page.getByRole("button", { name: `Remove wiki-${colorScheme}` })).toHaveCount(0);
    await expectAccessible(page, "the settings page with an MCP server for everyone");
    await page.goto("/admin");
    await servers.getByRole("button", { name: `Remove wiki-${colorScheme}` }).focus();
    await page.keyboard.press("Enter");
    await expect(servers.getByText("No MCP servers yet.")).toBeVisible();
    await expect(servers.getByRole("heading", { name: "MCP servers for everyone" })).toBeFocused();
    expect(await (await page.request.get("/api/admin/mcp-servers")).json()).toEqual([]);

    const accounts = await (await page.request.get("/api/admin/accounts")).json();
    expect(accounts.find((entry: { email: string }) => entry.email === "member@example.com").profiles).not.toBeNull();
    await page.getByRole("link", { name: "The audit log of all accounts" }).click();
    await expect(page.getByRole("heading", { name: "Audit log of all accounts" })).toBeVisible();
    await expectAccessible(page, "the whole audit log");
  });
}
