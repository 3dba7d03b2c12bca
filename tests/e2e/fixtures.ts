import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Locator, type Page } from "@playwright/test";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

interface Servers {
  model: ModelServer;
  app: AppServer;
}

/** One scripted model server and one production app server per worker, shared by its tests. */
export const test = base.extend<{ servers: Servers }, { workerServers: Servers }>({
  workerServers: [
    async ({}, provide) => {
      const model = new ModelServer();
      await model.start();
      const app = scriptedApp(model.url);
      await app.start();
      await provide({ model, app });
      await app.stop();
      await model.stop();
    },
    { scope: "worker" },
  ],
  servers: async ({ workerServers }, provide) => provide(workerServers),
  // Every page of the suite runs under the app's Content-Security-Policy: a violation fails the test.
  page: async ({ page }, provide) => {
    const violations: string[] = [];
    page.on("console", (message) => /Content Security Policy/i.test(message.text()) && violations.push(message.text()));
    await provide(page);
    expect(violations, "Content-Security-Policy violations").toEqual([]);
  },
  baseURL: async ({ workerServers }, provide) => provide(workerServers.app.url),
});

export { expect };

/** Keep a picture of a state worth looking at: test-results/screenshots/NAME.png (a CI artifact). */
export async function snapshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join("test-results", "screenshots", `${name}.png`), fullPage: false });
}

export async function sendMessage(page: Page, text: string): Promise<void> {
  const composer = page.getByLabel("Message", { exact: true });
  await composer.fill(text);
  await composer.press("Enter");
}

const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/** Zero serious or critical WCAG 2.1 AA violations, each listed with its nodes; soft, so one run reports every view. */
export async function expectAccessible(page: Page, where: string) {
  // After a client-side navigation Next streams the new page's metadata, which can land a moment after its
  // content: wait for the title (failing if none comes) rather than let axe catch that moment.
  await expect(page, `the title of ${where}`).toHaveTitle(/\S/);
  const { violations } = await new AxeBuilder({ page }).withTags(WCAG_21_AA).analyze();
  const blocking = violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}) ${violation.help}: ${violation.nodes.map((node) => node.target.join(" ")).join(" | ")}`,
    );
  expect.soft(blocking, `axe on ${where}`).toEqual([]);
}

/** The focused element's accessible name as a person hears it: its label, else its text. */
export const focusedName = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return element?.getAttribute("aria-label") ?? element?.innerText?.trim() ?? "";
  });

/**
 * Press Tab (or Shift+Tab) until the focused element's name matches, or it is `target` (a control whose name is its
 * label, not its text); fails after `max` presses.
 */
export async function tabTo(page: Page, target: RegExp | Locator, { max = 80, backwards = false } = {}): Promise<void> {
  const reached = async () =>
    target instanceof RegExp
      ? target.test(await focusedName(page))
      : target.evaluate((element) => element === document.activeElement);
  for (let i = 0; i < max; i++) {
    if (await reached()) return;
    await page.keyboard.press(backwards ? "Shift+Tab" : "Tab");
  }
  throw new Error(`No focusable element ${target} within ${max} presses (last: "${await focusedName(page)}").`);
}
