import type { Page } from "@playwright/test";
import { expectAccessible, expect, snapshot, test } from "./fixtures";
import { freePort, scriptedApp, type AppServer } from "../support/app-server";
import { Mailbox, signInLink } from "../support/mailbox";

// Passkeys in Chromium with its virtual authenticator (WebAuthn over the DevTools protocol). Chromium refuses an IP
// address as the relying party's id, so the app is opened, and knows itself (TOOLSMITH_PUBLIC_URL), as localhost.
const mailbox = new Mailbox();
let app: AppServer;
let origin: string;

test.beforeAll(async ({ workerServers }) => {
  const port = await freePort();
  origin = `http://localhost:${port}`;
  await mailbox.start();
  app = scriptedApp(workerServers.model.url, {
    TOOLSMITH_AUTH: "optional",
    SMTP_URL: mailbox.url,
    TOOLSMITH_PUBLIC_URL: origin,
  });
  await app.start({ port });
});
test.afterAll(async () => {
  await app?.stop();
  await mailbox.stop();
});

/** A platform authenticator that keeps discoverable credentials and says yes at once, as Touch ID would. */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return {
    credentials: async () => (await cdp.send("WebAuthn.getCredentials", { authenticatorId })).credentials,
  };
}

/** Focus a control and press Enter, as a person at the keyboard does. */
async function press(page: Page, name: string) {
  const control = page.getByRole("button", { name, exact: true });
  await control.focus();
  await page.keyboard.press("Enter");
}

const account = (page: Page) => page.getByRole("region", { name: "Account" });

async function signOut(page: Page) {
  await page.goto(`${origin}/settings`);
  await press(page, "Sign out");
  await page.waitForURL(`${origin}/`);
  await page.goto(`${origin}/settings`);
  await expect(account(page)).toContainText("You are not signed in");
}

test("adds a passkey in Settings, signs in with it from /signin, and a removed one signs in no more", async ({
  page,
}) => {
  const authenticator = await virtualAuthenticator(page);

  // An account starts with an email link.
  await page.goto(`${origin}/signin?next=/settings`);
  await page.getByLabel("Email address").focus();
  await page.keyboard.type("pia@example.com");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("status")).toContainText("Check the inbox of pia@example.com");
  await page.goto(signInLink(await mailbox.next("pia@example.com")).href);
  await press(page, "Continue as pia@example.com");
  await page.waitForURL(`${origin}/settings`);
  await expect(account(page)).toContainText("Signed in as pia@example.com");

  // Add one, named, with the keyboard: the name, then Tab to the button.
  const passkeys = page.getByRole("region", { name: "Passkeys" });
  await page.getByLabel("Name of the new passkey").focus();
  await page.keyboard.type("Work laptop");
  await page.keyboard.press("Tab");
  await expect(passkeys.getByRole("button", { name: "Add a passkey" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(passkeys.getByRole("status")).toHaveText("Added Work laptop: it signs you in from now on.");
  await expect(passkeys.getByRole("listitem")).toHaveCount(1);
  await expect(passkeys.getByRole("listitem")).toContainText("Work laptop");
  await expect(passkeys.getByRole("listitem")).toContainText("not used yet");
  // The authenticator holds it as a discoverable credential for this host.
  const [credential] = await authenticator.credentials();
  expect(credential).toMatchObject({ isResidentCredential: true, rpId: "localhost" });
  await expectAccessible(page, "Settings with a passkey");
  await snapshot(page, "42-passkeys");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ colorScheme: "dark" });
  await expectAccessible(page, "Settings with a passkey, dark, 390 px");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.emulateMedia({ colorScheme: "light" });
  // It is stored, not just shown: a fresh page lists it too.
  await page.reload();
  await expect(passkeys.getByRole("listitem")).toContainText("Work laptop");

  await signOut(page);

  // Sign in with it: no address asked for.
  await page.goto(`${origin}/signin?next=/settings`);
  await press(page, "Sign in with a passkey");
  await page.waitForURL(`${origin}/settings`);
  await expect(account(page)).toContainText("Signed in as pia@example.com");
  await expect(account(page)).toContainText("By passkey");
  await expect(passkeys.getByRole("listitem")).toContainText("last used");
  expect((await authenticator.credentials())[0].signCount).toBeGreaterThan(credential.signCount);

  // Remove it; the authenticator still offers it, the server no longer takes it.
  await press(page, "Remove Work laptop");
  await expect(passkeys.getByRole("listitem")).toHaveCount(0);
  await page.reload();
  await expect(account(page)).toContainText("Signed in as pia@example.com");
  await expect(passkeys.getByRole("listitem")).toHaveCount(0);
  await signOut(page);

  await page.goto(`${origin}/signin?next=/settings`);
  await press(page, "Sign in with a passkey");
  await expect(page.getByRole("main").getByRole("alert")).toHaveText("This passkey is not registered here.");
  expect(new URL(page.url()).pathname).toBe("/signin");
  await expectAccessible(page, "the sign-in page with a refused passkey");
  await page.goto(`${origin}/settings`);
  await expect(account(page)).toContainText("You are not signed in");
  expect(await authenticator.credentials()).toHaveLength(1);
});
