import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { chromium, type Page } from "@playwright/test";
import { chromiumLaunchOptions } from "../playwright.config";
import { Api } from "../tests/support/api";
import { scriptedApp } from "../tests/support/app-server";
import { bigTraceScript } from "../tests/support/trace-scripts";
import { ModelServer } from "../tests/support/model-server";
import { ms, summarize } from "./stats";

const LONG_TASK_MS = 50;

async function observeLongTasks(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { longTasks: { start: number; duration: number }[] };
    w.longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) w.longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: "longtask", buffered: true });
  });
}

async function longTasksSince(page: Page, since: number): Promise<number[]> {
  return page.evaluate(
    (from) =>
      (window as unknown as { longTasks: { start: number; duration: number }[] }).longTasks
        .filter((t) => t.start >= from)
        .map((t) => t.duration),
    since,
  );
}

/**
 * Gzipped size of the JavaScript a page loads, read from the build output. `noModule` scripts (Next's legacy
 * polyfills) are left out: browsers that run modules never fetch them.
 */
function shippedJs(html: string): { files: number; gzipBytes: number } {
  const sources = [...html.matchAll(/<script([^>]*)src="(\/_next\/static\/[^"]+\.js)"([^>]*)>/g)]
    .filter((match) => !/noModule/i.test(match[1] + match[3]))
    .map((match) => match[2]);
  const unique = [...new Set(sources)];
  const gzipBytes = unique.reduce((sum, src) => {
    const file = path.join(".next", "static", decodeURIComponent(src.replace("/_next/static/", "")));
    return sum + zlib.gzipSync(fs.readFileSync(file)).length;
  }, 0);
  return { files: unique.length, gzipBytes };
}

/**
 * Finding things in the trace at `url` (issue 30): each filter applied, then a search typed a character at a time,
 * timed inside the page from the input's event to the frame after the toolbar's count and the cards were updated
 * (React renders a select's or an input's event at once), with the long tasks meanwhile.
 */
async function benchFinding(page: Page, url: string, events: number): Promise<void> {
  await observeLongTasks(page);
  await page.goto(url);
  const toolbar = page.getByRole("search", { name: "Find in the trace" });
  await toolbar.waitFor();
  // Hydrated: the toolbar answers.
  await toolbar.getByRole("searchbox").fill("x");
  await toolbar.getByRole("searchbox").fill("");
  const since = await page.evaluate(() => performance.now());
  const timings = await page.evaluate(async () => {
    // No named functions in here: the bundler would wrap them in a helper the page does not have.
    const select = document.querySelector<HTMLSelectElement>('select[aria-label="Show"]')!;
    const search = document.querySelector<HTMLInputElement>('input[type="search"]')!;
    const count = document.querySelector('[data-testid="match-count"]')!;
    const setValue = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, "value")!.set!;
    const filters: Record<string, number> = {};
    for (const value of ["errors", "calls", "tool:calculate", "registrations", "all"]) {
      const started = performance.now();
      select.value = value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      filters[value] = performance.now() - started;
    }
    const keystrokes: { text: string; ms: number; count: string }[] = [];
    const typed = "3 * 1 + 1";
    for (let length = 1; length <= typed.length; length++) {
      const text = typed.slice(0, length);
      const started = performance.now();
      setValue.call(search, text);
      search.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      keystrokes.push({ text, ms: performance.now() - started, count: count.textContent ?? "" });
    }
    return { filters, keystrokes };
  });
  await page.waitForTimeout(300);
  const longTasks = await longTasksSince(page, since);
  const filterTimes = Object.values(timings.filters);
  const keyTimes = timings.keystrokes.map((key) => key.ms);
  console.log(
    `finding in that trace (${events} events): a filter applied in ${ms(Math.min(...filterTimes))} to ${ms(Math.max(...filterTimes))} (${Object.entries(
      timings.filters,
    )
      .map(([filter, time]) => `${filter} ${time.toFixed(0)}`)
      .join(", ")} ms; target < 300 ms)`,
  );
  console.log(
    `  search typed a key at a time ("${timings.keystrokes.at(-1)!.text}", ${timings.keystrokes.length} keys, ${timings.keystrokes.map((key) => key.count).join(" / ")}): median ${ms(summarize(keyTimes).median)}, max ${ms(Math.max(...keyTimes))} a key to the updated count (target < 50 ms)`,
  );
  console.log(
    `  ${longTasks.filter((d) => d > LONG_TASK_MS).length} long tasks over ${LONG_TASK_MS} ms meanwhile (longest ${longTasks.length ? `${Math.max(...longTasks).toFixed(0)} ms` : "none"})`,
  );
}

export async function benchUi(): Promise<void> {
  const model = new ModelServer();
  await model.start();
  const app = scriptedApp(model.url, { TOOLSMITH_MAX_STEPS: "10" });
  await app.start();
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const api = new Api(app.url);
    model.script("big trace", bigTraceScript());
    const big = await api.createConversation();
    const events = await api.run(big.id, "big trace");
    const url = `${app.url}/c/${big.id}`;
    // The browser reads the conversations as the identity that made them.
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    await context.addCookies([{ name: "toolsmith_id", value: await api.identity(), url: app.url }]);

    // Open and interactive: from navigation start until a click on the Tools tab is handled (React has hydrated),
    // timed inside the page, where a click waits behind hydration exactly as a person's would.
    const openTimes: number[] = [];
    const scrollLongTasks: number[] = [];
    const LOADS = 9;
    for (let attempt = 0; attempt < LOADS; attempt++) {
      const page = await context.newPage();
      await observeLongTasks(page);
      await page.goto(url, { waitUntil: "commit" });
      const interactiveAt = await page.evaluate(async () => {
        for (;;) {
          const tab = [...document.querySelectorAll('[role="tab"]')].find((element) =>
            element.textContent?.includes("Tools"),
          ) as HTMLElement | undefined;
          tab?.click();
          if (tab?.getAttribute("aria-selected") === "true") return performance.now();
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      });
      if (attempt > 0) openTimes.push(interactiveAt); // the first visit warms the server's route
      if (attempt === LOADS - 1) {
        await page.getByRole("tab", { name: /Trace/ }).click();
        const scroller = page.getByTestId("trace-scroll");
        await scroller.hover();
        const since = await page.evaluate(() => performance.now());
        for (let i = 0; i < 40; i++) await page.mouse.wheel(0, -600);
        for (let i = 0; i < 40; i++) await page.mouse.wheel(0, 600);
        await page.waitForTimeout(300);
        scrollLongTasks.push(...(await longTasksSince(page, since)));
      }
      await page.close();
    }

    // Streaming at 200 deltas a second.
    const prompt = "stream at 200 per second";
    model.script(prompt, [{ text: "word ".repeat(1000), chunkSize: 5, delayMs: 5 }]);
    const page = await context.newPage();
    await observeLongTasks(page);
    const conversation = await api.createConversation();
    await page.goto(`${app.url}/c/${conversation.id}`);
    await page.getByRole("tab", { name: /Trace/ }).click();
    const since = await page.evaluate(() => performance.now());
    const streamStarted = Date.now();
    await page.getByLabel("Message", { exact: true }).fill(prompt);
    await page.getByLabel("Message", { exact: true }).press("Enter");
    await page
      .getByTestId("assistant-message")
      .and(page.locator('[data-run-status="completed"]'))
      .waitFor({ timeout: 60_000 });
    const streamSeconds = (Date.now() - streamStarted) / 1000;
    const streamLongTasks = await longTasksSince(page, since);
    await page.close();

    const html = await (await api.fetch(`/c/${big.id}`)).text();
    const js = shippedJs(html);

    const open = summarize(openTimes);
    const worst = (tasks: number[]) => (tasks.length ? `${Math.max(...tasks).toFixed(0)} ms` : "none");
    console.log(`\n## Browser (Debian chromium, production build)`);
    console.log(
      `trace of ${events.length} events: open + interactive median ${ms(open.median)}, max ${ms(Math.max(...openTimes))} over ${openTimes.length} loads (target < 1 s)`,
    );
    console.log(
      `scrolling that trace: ${scrollLongTasks.filter((d) => d > LONG_TASK_MS).length} long tasks over ${LONG_TASK_MS} ms (longest ${worst(scrollLongTasks)})`,
    );
    console.log(
      `streaming 1,000 deltas at ~200/s (${streamSeconds.toFixed(1)} s): ${streamLongTasks.filter((d) => d > LONG_TASK_MS).length} long tasks over ${LONG_TASK_MS} ms (longest ${worst(streamLongTasks)})`,
    );
    console.log(
      `JavaScript for the conversation page: ${(js.gzipBytes / 1024).toFixed(1)} KB gzipped in ${js.files} files (target ≤ 250 KB)`,
    );
    await benchFinding(await context.newPage(), url, events.length);
  } finally {
    await browser.close();
    await app.stop();
    await model.stop();
  }
}
