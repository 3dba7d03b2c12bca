import fs from "node:fs";
import path from "node:path";
import type { Page, Route } from "@playwright/test";
import { scriptedApp, tempDataDir } from "../support/app-server";
import { expect, expectAccessible, sendMessage, snapshot, tabTo, test } from "./fixtures";

const SALES_CSV = [
  "month,customer,sales",
  "Jan,North,120",
  'Feb,"Smith, J",95',
  "Mar,South,143",
  'Apr,"Line one\nline two",88',
].join("\n");
/** A 1×1 PNG, as a copied screenshot would paste. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

const csvFile = { name: "sales.csv", mimeType: "text/csv", buffer: Buffer.from(SALES_CSV) };

/** Uploads wait until `release` is called, so a chip is seen while its file is on its way. */
async function holdUploads(page: Page): Promise<() => void> {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/conversations/*/files", async (route: Route) => {
    await released;
    await route.continue();
  });
  return release;
}

/** Attach through the paperclip, as a keyboard does it: focus, Enter, the file chooser. */
async function attachWithButton(page: Page, files: typeof csvFile | (typeof csvFile)[]) {
  const chooser = page.waitForEvent("filechooser");
  await page.getByRole("button", { name: "Attach files" }).focus();
  await page.keyboard.press("Enter");
  await (await chooser).setFiles(files);
}

/** Files dropped on the chat from outside the browser: a drag that enters, then a drop. */
async function dropFiles(page: Page, files: { name: string; type: string; text: string }[], { drop = true } = {}) {
  const dataTransfer = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const file of list) transfer.items.add(new File([file.text], file.name, { type: file.type }));
    return transfer;
  }, files);
  const chat = page.getByRole("region", { name: "Chat" });
  await chat.dispatchEvent("dragenter", { dataTransfer });
  await chat.dispatchEvent("dragover", { dataTransfer });
  if (drop) await chat.dispatchEvent("drop", { dataTransfer });
  return { leave: () => chat.dispatchEvent("dragleave", { dataTransfer }) };
}

/** An image pasted into the message box, as a screenshot copied to the clipboard is. */
async function pasteImage(page: Page, name: string) {
  await page.getByLabel("Message", { exact: true }).evaluate(
    (box, { name, base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (char) => char.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], name, { type: "image/png" }));
      box.dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
    },
    { name, base64: PIXEL_PNG },
  );
}

/** A new chat, once it responds: it focuses the message box when it has hydrated. */
async function openNewChat(page: Page, baseUrl = "/") {
  await page.goto(baseUrl);
  await expect(page.getByLabel("Message", { exact: true })).toBeFocused();
}

const chip = (page: Page, name: string) => page.getByTestId("attachment").filter({ hasText: name });

interface FileView {
  name: string;
  messageId: string | null;
}
async function filesOf(page: Page, conversationId: string): Promise<FileView[]> {
  const response = await page.request.get(`/api/conversations/${conversationId}`);
  expect(response.ok()).toBe(true);
  return (await response.json()).files;
}

test("files attach by the paperclip, a drop and a paste, upload with progress, go when removed, and go with the message", async ({
  page,
  servers,
}) => {
  const created: string[] = [];
  page.on("response", async (response) => {
    if (response.request().method() === "POST" && new URL(response.url()).pathname === "/api/conversations")
      created.push((await response.json()).id);
  });
  await openNewChat(page);
  const release = await holdUploads(page);

  // The paperclip, in a new chat: its conversation is created for the file, the page stays the new chat.
  await attachWithButton(page, csvFile);
  const sales = chip(page, "sales.csv");
  await expect(sales).toHaveAttribute("data-state", "uploading");
  await expect(sales).toContainText(`${SALES_CSV.length} bytes`);
  const progress = sales.getByRole("progressbar", { name: "Uploading sales.csv" });
  await expect(progress).toBeVisible();
  const value = await progress.evaluate((bar: HTMLProgressElement) => bar.value);
  expect(value).toBeGreaterThanOrEqual(0);
  expect(value).toBeLessThanOrEqual(1);
  await expect(page.getByRole("button", { name: "Send" })).toBeDisabled();
  await page.getByLabel("Message", { exact: true }).fill("Summarise my sales.");
  // Sending waits for the upload: Enter does nothing yet.
  await page.getByLabel("Message", { exact: true }).press("Enter");
  await expect(page.getByTestId("user-message")).toHaveCount(0);
  await expect(page.getByText("The message can be sent once its files are uploaded")).toBeVisible();
  await snapshot(page, "attachments-uploading");
  release();
  await expect(sales).toHaveAttribute("data-state", "uploaded");
  await expect(progress).toHaveCount(0);
  await page.unroute("**/api/conversations/*/files");

  // A drop on the chat: the drop zone shows while the files are over it.
  await dropFiles(page, [{ name: "notes.txt", type: "text/plain", text: "Remember the north." }]);
  await expect(page.getByTestId("drop-zone")).toHaveCount(0);
  await expect(chip(page, "notes.txt")).toHaveAttribute("data-state", "uploaded");

  // A paste into the message box: the image is attached, the text typed stays.
  await pasteImage(page, "chart.png");
  await expect(chip(page, "chart.png")).toHaveAttribute("data-state", "uploaded");
  await expect(page.getByLabel("Message", { exact: true })).toHaveValue("Summarise my sales.");

  // One conversation for the three.
  expect(created).toHaveLength(1);
  const [conversationId] = created;
  await expect(page).toHaveURL(/\/$/);
  expect((await filesOf(page, conversationId)).map((file) => file.name).sort()).toEqual([
    "chart.png",
    "notes.txt",
    "sales.csv",
  ]);

  // Removing an uploaded file deletes it; the message box keeps the focus.
  await page.getByRole("button", { name: "Remove notes.txt" }).focus();
  await page.keyboard.press("Enter");
  await expect(chip(page, "notes.txt")).toHaveCount(0);
  await expect(page.getByLabel("Message", { exact: true })).toBeFocused();
  expect((await filesOf(page, conversationId)).map((file) => file.name).sort()).toEqual(["chart.png", "sales.csv"]);

  // Sending attaches what is left: the chips go from the composer to the message, and the model is told.
  await page.getByLabel("Message", { exact: true }).press("Enter");
  await expect(page).toHaveURL(new RegExp(`/c/${conversationId}$`));
  await expect(page.getByTestId("attachment")).toHaveCount(0);
  const attached = page.getByRole("list", { name: "Attached files" });
  await expect(attached.getByTestId("message-file")).toHaveCount(2);
  await expect(attached.getByRole("button", { name: /^sales\.csv/ })).toContainText(`${SALES_CSV.length} bytes`);
  const image = attached.getByRole("link", { name: /^chart\.png/ });
  await expect(image).toHaveAttribute("href", /^\/api\/files\//);
  expect(
    await image.locator("img").evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth)),
  ).toBe(1);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const toModel = JSON.stringify(servers.model.requests.at(-1)!.messages);
  expect(toModel).toContain("Summarise my sales.");
  expect(toModel).toContain("sales.csv");
  expect(toModel).toContain("chart.png");
  const stored = await filesOf(page, conversationId);
  expect(stored.every((file) => file.messageId !== null)).toBe(true);

  // After a reload the message still shows its files, from what is stored.
  await page.reload();
  await expect(page.getByRole("list", { name: "Attached files" }).getByTestId("message-file")).toHaveCount(2);
});

test("a CSV file's chip opens its first rows, by keyboard only, in the owner's view and through a share link", async ({
  page,
  browser,
}) => {
  await openNewChat(page);
  await attachWithButton(page, csvFile);
  await expect(chip(page, "sales.csv")).toHaveAttribute("data-state", "uploaded");
  await sendMessage(page, "Chart these sales.");
  await expect(page).toHaveURL(/\/c\//);

  async function previewByKeyboard(viewer: Page) {
    await tabTo(viewer, /^sales\.csv/);
    await viewer.keyboard.press("Enter");
    const dialog = viewer.getByRole("dialog", { name: "sales.csv" });
    await expect(dialog).toBeVisible();
    const table = dialog.getByRole("table", { name: "The first rows of sales.csv" });
    await expect(table.getByRole("columnheader")).toHaveText(["month", "customer", "sales"]);
    const rows = table.getByRole("row");
    await expect(rows).toHaveCount(5);
    await expect(rows.nth(2).getByRole("cell")).toHaveText(["Feb", "Smith, J", "95"]);
    // Numbers line up on the right.
    await expect(rows.nth(2).getByRole("cell").nth(2)).toHaveCSS("text-align", "right");
    await expect(rows.nth(4).getByRole("cell").nth(1)).toHaveText("Line one\nline two");
    await expect(dialog).toContainText("All 4 rows.");
    // The dialog holds the focus: its table (a stop, to scroll it), its download and its Close are a few Tabs away.
    await tabTo(viewer, /^The first rows of sales\.csv$/, { max: 4 });
    await tabTo(viewer, /^Download$/, { max: 4 });
    await tabTo(viewer, /^Close$/, { max: 4 });
    await viewer.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    await expect(viewer.getByRole("button", { name: /^sales\.csv/ })).toBeFocused();
  }
  await previewByKeyboard(page);

  const conversationId = new URL(page.url()).pathname.split("/").at(-1)!;
  const { url } = await (await page.request.post(`/api/conversations/${conversationId}/share`)).json();
  const context = await browser.newContext();
  const viewer = await context.newPage();
  await viewer.goto(url);
  const shared = viewer.getByRole("list", { name: "Attached files" }).getByRole("button", { name: /^sales\.csv/ });
  await expect(shared).toBeVisible();
  await previewByKeyboard(viewer);
  // The link holder reads the file through the link, not the owner's route.
  await viewer.getByRole("button", { name: /^sales\.csv/ }).click();
  await expect(viewer.getByRole("link", { name: "Download" })).toHaveAttribute(
    "href",
    new RegExp(`^/api/share/[\\w-]+/files/[\\w-]+\\?download=1$`),
  );
  await context.close();
});

test("a large CSV file's preview reads its first 64 KB only: the whole rows in it, never a row cut in two", async ({
  page,
}) => {
  // Rows of about 1 KB: the first 64 KB end inside one.
  const ledger = ["id,note", ...Array.from({ length: 200 }, (_, index) => `${index + 1},${"x".repeat(1000)}`)].join(
    "\n",
  );
  const head = ledger.slice(0, 64 * 1024);
  const wholeRows = head.slice(0, head.lastIndexOf("\n")).split("\n").length - 1;
  await openNewChat(page);
  await attachWithButton(page, { name: "ledger.csv", mimeType: "text/csv", buffer: Buffer.from(ledger) });
  await expect(chip(page, "ledger.csv")).toHaveAttribute("data-state", "uploaded");
  await expect(chip(page, "ledger.csv")).toContainText("196.2 KB");
  await sendMessage(page, "Read my ledger.");
  await expect(page).toHaveURL(/\/c\//);
  await page.getByRole("button", { name: /^ledger\.csv/ }).click();
  const dialog = page.getByRole("dialog", { name: "ledger.csv" });
  const rows = dialog.getByRole("table", { name: "The first rows of ledger.csv" }).getByRole("row");
  await expect(rows).toHaveCount(wholeRows + 1);
  await expect(rows.last().getByRole("cell")).toHaveText([String(wholeRows), "x".repeat(1000)]);
  await expect(dialog).toContainText(`The first ${wholeRows} rows.`);
});

test("a file past the size limit shows the server's sentence, which its Remove dismisses, and the others still go under the profile chosen after them", async ({
  page,
  servers,
}) => {
  const config = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(
    config,
    "profiles:\n  - name: careful\n    tools: [calculate]\n  - name: quick\n    tools: [calculate]\ndefault_profile: careful\n",
  );
  const app = scriptedApp(servers.model.url, { TOOLSMITH_FILE_MAX_MB: "1", TOOLSMITH_CONFIG: config });
  await app.start();
  try {
    await openNewChat(page, app.url);
    const big = { name: "big.bin", mimeType: "application/octet-stream", buffer: Buffer.alloc(1.5 * 1024 * 1024, 7) };
    await attachWithButton(page, [big, csvFile]);
    const refused = chip(page, "big.bin");
    await expect(refused).toHaveAttribute("data-state", "failed");
    await expect(refused.getByRole("alert")).toHaveText("big.bin is larger than 1 MB, the limit of one file.");
    await expect(refused).toContainText("1.5 MB");
    await expect(chip(page, "sales.csv")).toHaveAttribute("data-state", "uploaded");
    await snapshot(page, "attachments-refused");

    await page.getByRole("button", { name: "Remove big.bin" }).click();
    await expect(refused).toHaveCount(0);
    // The conversation was created for the files under the default profile; the one chosen before sending counts.
    await page.getByTestId("profile-select").selectOption("quick");
    await sendMessage(page, "Only the small one.");
    await expect(page.getByRole("list", { name: "Attached files" }).getByTestId("message-file")).toHaveText([
      /^sales\.csv/,
    ]);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
    await expect(page.getByTestId("run-profile")).toHaveText("profile quick");
  } finally {
    await app.stop();
  }
});

for (const colorScheme of ["light", "dark"] as const) {
  for (const width of [390, 1440]) {
    test(`attachments pass axe in the ${colorScheme} scheme at ${width} px: chips uploading, uploaded and refused, the drop zone, a message's files, the CSV preview`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 844 });
      await page.emulateMedia({ colorScheme });
      await openNewChat(page);
      await attachWithButton(page, csvFile);
      await expect(chip(page, "sales.csv")).toHaveAttribute("data-state", "uploaded");
      await pasteImage(page, "chart.png");
      await expect(chip(page, "chart.png")).toHaveAttribute("data-state", "uploaded");

      // One refused (as a 413 says it), one held on its way.
      let held = () => {};
      const release = new Promise<void>((resolve) => (held = resolve));
      await page.route("**/api/conversations/*/files", async (route) => {
        if (route.request().postDataBuffer()?.includes("huge.bin"))
          return route.fulfill({
            status: 413,
            json: { error: { code: "too_large", message: "huge.bin is larger than 25 MB, the limit of one file." } },
          });
        await release;
        await route.continue();
      });
      await dropFiles(page, [{ name: "huge.bin", type: "application/octet-stream", text: "x" }]);
      await dropFiles(page, [{ name: "slow.txt", type: "text/plain", text: "slow" }]);
      await expect(chip(page, "huge.bin").getByRole("alert")).toContainText("larger than 25 MB");
      await expect(chip(page, "slow.txt")).toHaveAttribute("data-state", "uploading");
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await snapshot(page, `attachments-chips-${colorScheme}-${width}`);
      await expectAccessible(page, `the composer's chips (${colorScheme}, ${width} px)`);

      const drag = await dropFiles(page, [{ name: "more.txt", type: "text/plain", text: "more" }], { drop: false });
      await expect(page.getByTestId("drop-zone")).toBeVisible();
      await expectAccessible(page, `the drop zone (${colorScheme}, ${width} px)`);
      await drag.leave();
      await expect(page.getByTestId("drop-zone")).toHaveCount(0);

      held();
      await expect(chip(page, "slow.txt")).toHaveAttribute("data-state", "uploaded");
      await page.getByRole("button", { name: "Remove huge.bin" }).click();
      await sendMessage(page, `Look at these (${colorScheme}, ${width}).`);
      await expect(page.getByRole("list", { name: "Attached files" }).getByTestId("message-file")).toHaveCount(3);
      await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
      await expectAccessible(page, `a message's files (${colorScheme}, ${width} px)`);

      await page.getByRole("button", { name: /^sales\.csv/ }).click();
      await expect(page.getByRole("dialog", { name: "sales.csv" }).getByRole("table")).toBeVisible();
      await snapshot(page, `attachments-csv-preview-${colorScheme}-${width}`);
      await expectAccessible(page, `the CSV preview (${colorScheme}, ${width} px)`);
    });
  }
}
