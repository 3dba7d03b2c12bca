import { defineConfig } from "@playwright/test";

// Debian's chromium (installed by .ci/run): Playwright's own browser download is not reachable here.
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "tests/e2e",
  // One migrated SQLite database, copied for each server the tests start.
  globalSetup: "./tests/support/sqlite-template.ts",
  outputDir: "test-results",
  workers: 1,
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter: [["list"]],
  use: {
    launchOptions: chromiumLaunchOptions,
    viewport: { width: 1440, height: 900 },
    screenshot: "only-on-failure",
  },
});
