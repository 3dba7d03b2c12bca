import type { APIResponse, Page } from "@playwright/test";
import { STREAM_DONE, STREAM_ROLE, streamChunk, type Reply } from "../support/model-server";
import { bigTraceScript, FAILURES_SCRIPT } from "../support/trace-scripts";
import { expect, sendMessage, test } from "./fixtures";

interface LoggedEvent {
  id: number;
  type: string;
  step?: number;
  name?: string;
}

/** The events of a run, from the SSE answer of the message that started it. */
async function eventsOf(response: APIResponse): Promise<LoggedEvent[]> {
  const events: LoggedEvent[] = [];
  for (const block of (await response.text()).split("\n\n")) {
    const id = /^id: (\d+)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (id && data) events.push({ ...JSON.parse(data), id: Number(id) });
  }
  return events;
}

/** A conversation of the page's identity, and the events of the run its message started. */
async function runConversation(page: Page, message: string) {
  await page.goto("/");
  const { id } = await (await page.request.post("/api/conversations")).json();
  const response = await page.request.post(`/api/conversations/${id}/messages`, { data: { content: message } });
  return { id: id as string, events: await eventsOf(response) };
}

const card = (page: Page, eventId: number) => page.locator(`[data-find-card="${eventId}"]`);

/** The panel landed on the card: built, scrolled into view, current, focused and ringed. */
async function expectLandedOn(page: Page, eventId: number) {
  const target = card(page, eventId);
  await expect(target).toHaveAttribute("aria-current", "true");
  await expect(target).toBeFocused();
  await expect(target).toBeInViewport();
  await expect(page.locator(`#e${eventId}`)).toBeVisible();
  expect(await target.evaluate((element) => getComputedStyle(element).animationName)).toBe("card-flash");
}

test("filter, search and next failure on a trace with several failures, by keyboard alone", async ({
  page,
  servers,
}) => {
  const prompt = "Compute with a few failures.";
  servers.model.script(prompt, FAILURES_SCRIPT);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const panel = page.getByRole("complementary", { name: "Reasoning panel" });
  const toolbar = panel.getByRole("search", { name: "Find in the trace" });
  const filter = toolbar.getByRole("combobox", { name: "Show" });
  const search = toolbar.getByRole("searchbox", { name: "Search the trace" });
  const matchCount = toolbar.getByTestId("match-count");
  const failureCount = toolbar.getByTestId("failure-count");
  const visibleCalls = panel.locator('[data-testid="tool-call"]:visible');
  await expect(failureCount).toHaveText("3 failures");
  await expect(visibleCalls).toHaveCount(5);

  // From the panel's tabs, Tab reaches the filter; an arrow key chooses "Errors only".
  await panel.getByRole("tab", { name: /Tools/ }).focus();
  await page.keyboard.press("Tab");
  await expect(filter).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(filter).toHaveValue("errors");
  await expect(visibleCalls).toHaveCount(3);
  await expect(visibleCalls.filter({ has: page.getByTestId("tool-rejected") })).toHaveCount(1);
  // Step 3 has no call, so none of it is shown; steps 1 and 2 keep their headers but hide their text.
  await expect(panel.getByTestId("trace-step").filter({ visible: true })).toHaveCount(2);
  await expect(panel.getByText("Let me compute a few things.")).toBeHidden();

  // The search counts and marks only what the filter shows; Enter and Shift+Enter step through the matches.
  await page.keyboard.press("Tab");
  await expect(search).toBeFocused();
  await page.keyboard.type("calculate");
  // The failed calculation, and the unknown tool's error, which lists the tools there are.
  await expect(matchCount).toHaveText("1 of 2");
  await filter.focus();
  await page.keyboard.press("ArrowUp");
  await expect(filter).toHaveValue("all");
  await expect(visibleCalls).toHaveCount(5);
  await expect(matchCount).toHaveText(/^\d of 4$/);
  await search.focus();
  await page.keyboard.press("Enter");
  const first = await matchCount.textContent();
  await page.keyboard.press("Enter");
  await expect(matchCount).not.toHaveText(first!);
  await page.keyboard.press("Shift+Enter");
  await expect(matchCount).toHaveText(first!);
  await expect(panel.locator("mark").filter({ hasText: /^calculate$/i })).toHaveCount(4);
  await expect(panel.locator('[data-find="match"]')).toHaveCount(4);

  // Next failure, from its button: the count says which; the focus stays on the button.
  await page.keyboard.press("Tab"); // previous match
  await page.keyboard.press("Tab"); // next match
  await page.keyboard.press("Tab"); // previous failure
  await page.keyboard.press("Tab");
  const nextFailure = toolbar.getByRole("button", { name: "Next failure" });
  await expect(nextFailure).toBeFocused();
  await expect(nextFailure).toHaveAttribute("aria-keyshortcuts", "J");
  await page.keyboard.press("Enter");
  await expect(failureCount).toHaveText(/^Failure \d of 3$/);
  await expect(nextFailure).toBeFocused();

  // The shortcuts, while the focus is in the panel but not in a field: j and k go to the card, and take the focus.
  const failed = await panel
    .locator('[data-testid="tool-call"][data-status="error"]')
    .evaluateAll((cards) =>
      cards.map((element) => Number(element.closest("[data-find-card]")!.getAttribute("data-find-card"))),
    );
  expect(failed).toHaveLength(3);
  const at = Number(/Failure (\d)/.exec((await failureCount.textContent())!)![1]) - 1;
  for (const [key, index] of [
    ["k", (at + 2) % 3],
    ["j", at],
    ["j", (at + 1) % 3],
    ["j", (at + 2) % 3],
    ["j", at], // around again
  ] as const) {
    await page.keyboard.press(key);
    await expect(failureCount).toHaveText(`Failure ${index + 1} of 3`);
    await expect(card(page, failed[index])).toBeFocused();
    await expect(card(page, failed[index])).toHaveAttribute("aria-current", "true");
  }
  await page.keyboard.press("n");
  await expect(matchCount).toHaveText(/^\d of 4$/);
  await expect(panel.locator('[data-find-card][aria-current="true"]')).toBeFocused();
  await page.keyboard.press("/");
  await expect(search).toBeFocused();
  // In the search box, letters are letters.
  await page.keyboard.press("End");
  await page.keyboard.type("j");
  await expect(search).toHaveValue("calculatej");
  await expect(matchCount).toHaveText("No matches");

  // One tool by name.
  await filter.selectOption({ label: "calculate" });
  await search.fill("");
  await expect(visibleCalls).toHaveCount(3);
  await expect(failureCount).toHaveText(/^(Failure 1 of 1|1 failure)$/);
  await filter.selectOption({ label: "Registrations" });
  await expect(visibleCalls).toHaveCount(1);
  await expect(visibleCalls.getByTestId("tool-rejected")).toBeVisible();
});

test("a permalink to a card deep in a 2,000-event trace scrolls to it and highlights it, on the owner's page and the shared one", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "A long trace to link into.";
  servers.model.script(prompt, bigTraceScript());
  const { id, events } = await runConversation(page, prompt);
  expect(events.length).toBeGreaterThan(1_900);
  // A call in the middle of the 210: the last cards of the run are built at once, this one only when scrolled near.
  const deep = events.filter((event) => event.type === "tool_call")[100].id;

  // Opened without a link: the card is not built yet.
  await page.goto(`/c/${id}`);
  await expect(page.getByTestId("trace-run")).toHaveCount(1);
  await expect(page.getByTestId("trace-run")).toBeVisible();
  await expect(page.locator(`#e${deep}`)).toHaveCount(0);
  await expect(card(page, deep)).not.toBeInViewport();
  // A link followed on the page (hashchange) builds it, opens the panel's view of it, and lands on it.
  await page.evaluate((eventId) => (window.location.hash = `#e${eventId}`), deep);
  await expectLandedOn(page, deep);
  await expect(page.locator(`#e${deep}`)).toContainText("3 * 10 + 1");

  // Opened from the link (from another page: the same address again would only scroll, as a fragment does).
  await page.goto("about:blank");
  await page.goto(`/c/${id}#e${deep}`);
  await expectLandedOn(page, deep);

  // The same link on the shared page, for someone else.
  const { url } = await (await page.request.post(`/api/conversations/${id}/share`)).json();
  const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const viewer = await viewerContext.newPage();
  await viewer.goto(`${url}#e${deep}`);
  await expectLandedOn(viewer, deep);
  // The card's own permalink names the shared page.
  await expect(viewer.locator(`#e${deep}`).getByRole("link", { name: "Link to the calculate call" })).toHaveAttribute(
    "href",
    `${new URL(url).pathname}#e${deep}`,
  );
  await viewerContext.close();

  // On a narrow screen the panel is a drawer, closed: a link opens it.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("about:blank");
  await page.goto(`/c/${id}#e${deep}`);
  await expect(page.getByTestId("panel")).toBeVisible();
  await expectLandedOn(page, deep);
});

test("a long trace is on the page once while React reveals it, and while a run streams into it", async ({
  page,
  servers,
}) => {
  const prompt = "A long trace to open.";
  servers.model.script(prompt, bigTraceScript());
  const { id } = await runConversation(page, prompt);
  const streaming = "Then stream slowly.";
  servers.model.script(streaming, [{ deltas: 120, numbered: true, delayMs: 100 }]);
  const running = page.request.post(`/api/conversations/${id}/messages`, { data: { content: streaming } });
  await expect.poll(() => servers.model.requestsFor(streaming).length).toBe(1);

  // React streams a large Suspense boundary hidden and reveals it 300 ms after a paint (its $RT); a busy machine
  // hydrates the page and applies the first live events before that. Holding the reveal makes that order certain.
  await page.addInitScript(() => {
    Object.defineProperty(window, "$RT", { get: () => performance.now() + 5_000, set: () => {} });
    const seen: { copies: number; hydratedFirst?: boolean } = { copies: 0 };
    Object.assign(window, { seen });
    new MutationObserver(() => {
      // The most copies of one run, one message or one card's id the page held at once.
      const names = [
        ...[...document.querySelectorAll('[data-testid="trace-run"]')].map((run) => run.getAttribute("aria-label")),
        ...[...document.querySelectorAll('[data-testid="user-message"]')].map((message) => message.textContent),
        ...[...document.querySelectorAll("[id]")].map((element) => element.id).filter((name) => /^e\d+$/.test(name)),
      ];
      const copies = new Map<string | null, number>();
      for (const name of names) copies.set(name, (copies.get(name) ?? 0) + 1);
      seen.copies = Math.max(seen.copies, ...copies.values());
      // Whether the page had hydrated (the composer takes the focus then) when the trace was first shown.
      const revealed = document.querySelector('[data-testid="trace-run"]:not([hidden] *)');
      if (revealed) seen.hydratedFirst ??= document.activeElement?.tagName === "TEXTAREA";
    }).observe(document, { subtree: true, childList: true });
  });
  await page.goto(`/c/${id}`);
  await expect(page.getByTestId("trace-run")).toHaveCount(2);
  await expect(page.getByTestId("trace-run").last()).toBeVisible();
  await expect(page.getByTestId("assistant-message").last()).toContainText("119,");
  const seen = await page.evaluate(
    () => (window as unknown as { seen: { copies: number; hydratedFirst?: boolean } }).seen,
  );
  expect(seen.hydratedFirst, "the page hydrated before React revealed the trace").toBe(true);
  expect(seen.copies, "copies of a run, a message or a card's id at once").toBe(1);
  await running;
});

test("a permalink landed on before the page has been parsed keeps the focus when the browser scrolls to it", async ({
  page,
  servers,
}) => {
  const prompt = "One sum to link to.";
  servers.model.script(prompt, [{ toolCalls: [{ name: "calculate", args: { expression: "1 + 1" } }] }, { text: "2." }]);
  const { id, events } = await runConversation(page, prompt);
  const call = events.find((event) => event.type === "tool_call")!.id;
  // A script at the end of the page, held back 2 s: the page hydrates and finds the card meanwhile, and the browser
  // scrolls to the address's #e… (clearing the focus: it is not focusable) only once it has parsed the page.
  await page.route("**/hold-parsing.js", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await route.fulfill({ contentType: "text/javascript", body: "" });
  });
  await page.route(`**/c/${id}`, async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    const nonce = /nonce="([^"]+)"/.exec(html)![1];
    const held = `<script nonce="${nonce}" src="/hold-parsing.js"></script></body>`;
    await route.fulfill({ response, body: html.replace("</body>", held) });
  });
  await page.goto(`/c/${id}#e${call}`);
  await expectLandedOn(page, call);
});

test("a permalink to a card of a run still streaming waits for the card, then lands on it", async ({
  page,
  servers,
}) => {
  const prompt = "Hold the second step.";
  const call = (expression: string) =>
    streamChunk({
      tool_calls: [
        {
          index: 0,
          id: `call_${expression.length}`,
          type: "function",
          function: { name: "calculate", arguments: JSON.stringify({ expression }) },
        },
      ],
    });
  const script = (holdMs: number): Reply[] => [
    { toolCalls: [{ name: "calculate", args: { expression: "1 + 1" } }] },
    // The model holds its second answer before it sends the call the link names.
    { raw: [STREAM_ROLE, holdMs, call("6 * 7"), streamChunk({}, "tool_calls"), STREAM_DONE] },
    { text: "Forty-two." },
  ];
  // A rehearsal without the hold finds the id the held call gets: the log of a run is the same each time.
  servers.model.script(`${prompt} (rehearsal)`, script(0));
  const rehearsal = await runConversation(page, `${prompt} (rehearsal)`);
  const held = rehearsal.events.filter((event) => event.type === "tool_call")[1].id;

  servers.model.script(prompt, script(4_000));
  await page.goto("/");
  const { id } = await (await page.request.post("/api/conversations")).json();
  const running = page.request.post(`/api/conversations/${id}/messages`, { data: { content: prompt } });
  // The link is opened while the model holds its second answer.
  await expect.poll(() => servers.model.requestsFor(prompt).length).toBe(2);
  await page.goto(`/c/${id}#e${held}`);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "running");
  await expect(page.getByTestId("tool-call")).toHaveCount(1);
  await expect(card(page, held)).toHaveCount(0);
  await expectLandedOn(page, held);
  await expect(page.locator(`#e${held}`)).toContainText("6 * 7");
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  await running;

  // A link to a card the finished trace does not have says so.
  await page.goto(`/c/${id}#e9999`);
  await expect(
    page.getByRole("status").filter({ hasText: "The card this link names is not in this trace." }),
  ).toBeVisible();
});
