import { expectAccessible, expect, snapshot, test } from "./fixtures";
import { freePort, scriptedApp, type AppServer } from "../support/app-server";
import { Mailbox, signInLink } from "../support/mailbox";
import { CLIENT, OidcProvider } from "../support/oidc-provider";

// Its own server with accounts on: email links through a real SMTP server, single sign-on through a real provider.
const mailbox = new Mailbox();
const provider = new OidcProvider();
let app: AppServer;

test.beforeAll(async ({ workerServers }) => {
  const port = await freePort();
  await Promise.all([mailbox.start(), provider.start(`http://127.0.0.1:${port}/api/auth/callback/oidc`)]);
  provider.people.set("ada", { email: "ada@example.com", email_verified: true, name: "Ada" });
  app = scriptedApp(workerServers.model.url, {
    TOOLSMITH_AUTH: "optional",
    SMTP_URL: mailbox.url,
    TOOLSMITH_OIDC_ISSUER: provider.issuer,
    TOOLSMITH_OIDC_CLIENT_ID: CLIENT.id,
    TOOLSMITH_OIDC_CLIENT_SECRET: CLIENT.secret,
    TOOLSMITH_OIDC_NAME: "Test IdP",
  });
  await app.start({ port });
});
test.afterAll(async () => {
  await app?.stop();
  await Promise.all([mailbox.stop(), provider.stop()]);
});

const TOOL = {
  name: "shout",
  description: "Upper-case a text.",
  parameters_schema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  code: "function run({ text }) { return text.toUpperCase(); }",
};

test("signs in by email link with the keyboard, keeps what was made anonymously, and deletes the account", async ({
  page,
}) => {
  await page.goto(`${app.url}/tools`);
  expect((await page.request.post(`${app.url}/api/tools`, { data: TOOL })).status()).toBe(201);
  // The nav offers signing in while anonymous, and names the account once signed in.
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sign in" })).toBeVisible();

  await page.goto(`${app.url}/signin?next=/tools`);
  await expectAccessible(page, "the sign-in page");
  await page.getByLabel("Email address").focus();
  await page.keyboard.type("kim@example.com");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Check the inbox of kim@example.com");
  await snapshot(page, "40-sign-in");

  const link = signInLink(await mailbox.next("kim@example.com"));
  await page.goto(link.href);
  await expectAccessible(page, "the email link's page");
  const proceed = page.getByRole("button", { name: "Continue as kim@example.com" });
  await proceed.focus();
  await page.keyboard.press("Enter");
  await page.waitForURL(`${app.url}/tools`);
  await expect(page.getByText("shout", { exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: "Account: kim@example.com" })).toBeVisible();
  await page.goto(`${app.url}/`);
  await expect(
    page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: "kim@example.com" }),
  ).toBeVisible();

  await page.goto(`${app.url}/settings`);
  const account = page.getByRole("region", { name: "Account" });
  await expect(account).toContainText("Signed in as kim@example.com");
  await expect(account).toContainText("This browser");
  await expectAccessible(page, "the account settings");
  await snapshot(page, "41-account-settings");

  const remove = page.getByRole("button", { name: "Delete account" });
  await expect(remove).toBeDisabled();
  await page.getByLabel("Type kim@example.com to confirm").fill("kim@example.com");
  await remove.click();
  await page.waitForURL(`${app.url}/`);
  await page.goto(`${app.url}/tools`);
  await expect(page.getByText("shout", { exact: true })).toHaveCount(0);
});

test("signs in through the identity provider's own pages", async ({ page }) => {
  await page.goto(`${app.url}/signin`);
  await page.getByRole("link", { name: "Sign in with Test IdP" }).click();
  await page.waitForURL(new RegExp(`^${provider.issuer}/interaction/`));
  await page.locator('input[name="login"]').fill("ada");
  await page.locator('input[name="password"]').fill("any");
  await page.getByRole("button", { name: "Sign-in" }).click();
  await page.getByRole("button", { name: "Continue" }).click();
  await page.waitForURL(`${app.url}/`);
  await page.goto(`${app.url}/settings`);
  await expect(page.getByRole("region", { name: "Account" })).toContainText("Signed in as ada@example.com");
  await page.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL(`${app.url}/`);
  await page.goto(`${app.url}/settings`);
  await expect(page.getByRole("region", { name: "Account" })).toContainText("You are not signed in");
});

test("the sign-in page reads in the dark and at 390 px", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(`${app.url}/signin?error=oidc_no_verified_email`);
  await expect(page.getByText(/did not confirm your email address/)).toBeVisible();
  await expectAccessible(page, "the sign-in page, dark, 390 px");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
