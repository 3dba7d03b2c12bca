import { randomBytes } from "node:crypto";
import type { Page } from "@playwright/test";
import { expect, expectAccessible, test } from "./fixtures";

/*
 * Settings → Secrets by keyboard alone: a secret kept with its hosts and listed as never used, its value never on
 * the page again; a refusal of the server's announced as an alert; removal, the focus going to the section's heading.
 * WCAG 2.1 AA by axe in both schemes, wide and at 390 px.
 */

/** The focused element's accessible name: its label's text (its first line), its aria-label, else its own text (one line). */
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLInputElement | null;
    const label = element?.labels?.[0]?.innerText?.trim().split("\n")[0];
    return label ?? element?.getAttribute("aria-label") ?? element?.innerText?.replace(/\s+/g, " ").trim() ?? "";
  });

/** Tab once, and say where the focus landed: each stop of the form in order, as a keyboard user meets them. */
async function tab(page: Page, expected: string | RegExp, key = "Tab") {
  await page.keyboard.press(key);
  expect(await focusedName(page)).toMatch(expected);
}

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [1440, 390]) {
    test(`Secrets on the settings page, by keyboard, WCAG 2.1 AA in the ${colorScheme} scheme at ${width} px`, async ({
      page,
    }) => {
      const value = `sk-live-${randomBytes(16).toString("hex")}/+=`;
      const refusedValue = `sk-refused-${randomBytes(16).toString("hex")}`;
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      await page.goto("/settings");
      const section = page.getByRole("region", { name: "Secrets", exact: true });
      await expect(section.getByText("No secrets yet.")).toBeVisible();
      await expectAccessible(page, "the settings page without secrets");

      // The name is made upper case as it is typed.
      await section.getByLabel("Secret name", { exact: true }).focus();
      await page.keyboard.type("weather_key");
      await tab(page, "Secret value");
      await page.keyboard.type(value);
      await tab(page, /^Hosts it may be sent to$/);
      await page.keyboard.type("api.weather.test, *.Weather.Example");
      await tab(page, "Save secret");
      await page.keyboard.press("Enter");

      const item = section.getByTestId("secret");
      await expect(item).toHaveCount(1);
      await expect(item).toContainText("WEATHER_KEY");
      await expect(item).toContainText("yours");
      await expect(item).toContainText("Sent only to api.weather.test, weather.example");
      await expect(item).toContainText("Never used");
      await expect(page.getByRole("status").filter({ hasText: "Saved WEATHER_KEY." })).toBeAttached();
      // The form is empty again, and the value is nowhere on the page or in its DOM: not in a field, not in an attribute.
      await expect(section.getByLabel("Secret value", { exact: true })).toHaveValue("");
      const html = await page.content();
      for (const form of [value, encodeURIComponent(value)]) expect(html).not.toContain(form);
      expect(await page.evaluate(() => document.documentElement.outerHTML)).not.toContain(value);
      // Nor does a reload bring it back.
      await page.reload();
      await expect(section.getByTestId("secret")).toContainText("Never used");
      expect(await page.content()).not.toContain(value);
      await expectAccessible(page, "the settings page with a secret");

      // A host with a scheme: the server's sentence, announced as an alert.
      await section.getByLabel("Secret name", { exact: true }).focus();
      await page.keyboard.type("REFUSED_KEY");
      await tab(page, "Secret value");
      await page.keyboard.type(refusedValue);
      await tab(page, /^Hosts it may be sent to$/);
      await page.keyboard.type("https://api.weather.test");
      await page.keyboard.press("Enter");
      await expect(section.getByRole("alert")).toHaveText(
        "hosts.0: each host is a host name like api.openweathermap.org (its subdomains count too) or an IP address, " +
          "without scheme, port or path",
      );
      await expect(section.getByTestId("secret")).toHaveCount(1);
      await expectAccessible(page, "the settings page with a refused secret");

      // Removal, by Tab from the form back to the secret's button.
      await section.getByLabel("Secret name", { exact: true }).focus();
      await tab(page, "Remove WEATHER_KEY", "Shift+Tab");
      await page.keyboard.press("Enter");
      await expect(section.getByText("No secrets yet.")).toBeVisible();
      await expect(page.getByRole("heading", { name: "Secrets", exact: true })).toBeFocused();
      await expect(page.getByRole("status").filter({ hasText: "Removed WEATHER_KEY." })).toBeAttached();
      // The refusal is gone with the next action.
      await expect(section.getByRole("alert")).toHaveCount(0);
      expect(await (await page.request.get("/api/secrets")).json()).toEqual([]);
      await expectAccessible(page, "the settings page after removing a secret");
    });
  }
}

test("the value typed but refused by the server stays only in its field, not in the page's markup", async ({
  page,
}) => {
  const value = `sk-typed-${randomBytes(16).toString("hex")}`;
  await page.goto("/settings");
  const section = page.getByRole("region", { name: "Secrets", exact: true });
  await section.getByLabel("Secret name", { exact: true }).focus();
  await page.keyboard.type("TYPED_KEY");
  await tab(page, "Secret value");
  await page.keyboard.type(value);
  await tab(page, /^Hosts it may be sent to$/);
  await page.keyboard.type("https://api.weather.test");
  await page.keyboard.press("Enter");
  await expect(section.getByRole("alert")).toBeVisible();
  // The person may correct the hosts and send again: the field keeps the value, as a password field does.
  await expect(section.getByLabel("Secret value", { exact: true })).toHaveValue(value);
  // A password field's value is its property, not a `value` attribute that markup (or a CSS selector) can read.
  const html = await page.content();
  const at = html.indexOf(value);
  expect(at === -1 ? "" : html.slice(html.lastIndexOf("<", at), at + value.length + 2), "the value in the markup").toBe(
    "",
  );
});
