import fs from "node:fs/promises";
import type { ConversationFile } from "@/lib/contract/responses";
import { humanSize } from "@/lib/files/display";
import type { Browser, Locator, Page } from "@playwright/test";
import { expect, expectAccessible, focusedName, sendMessage, tabTo, test } from "./fixtures";

/** A Python tool that writes a report (pandas) and draws a chart of it (matplotlib) into the conversation's files. */
const REPORT_PY = `import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

def run(inputs):
    frame = pd.DataFrame(inputs["rows"])
    frame.to_csv("/mnt/data/report.csv", index=False)
    plt.figure(figsize=(4, 3))
    plt.bar(frame["month"], frame["sales"])
    plt.title("Sales by month")
    plt.savefig("/mnt/data/chart.png")
    plt.close("all")
    return {"rows": len(frame), "total": int(frame["sales"].sum())}
`;
const ROWS = {
  type: "object",
  properties: { rows: { type: "array", items: { type: "object" } } },
  required: ["rows"],
};
const INPUT = {
  rows: [
    { month: "Jan", sales: 3 },
    { month: "Feb", sales: 5 },
    { month: "Mar", sales: 8 },
  ],
};
/** What pandas writes for INPUT: the header, then a line per row. */
const REPORT_CSV = "month,sales\nJan,3\nFeb,5\nMar,8\n";

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function openPanel(page: Page) {
  await page.getByRole("button", { name: "Open the reasoning panel" }).focus();
  await page.keyboard.press("Enter");
}

const filesOf = (page: Page) => page.getByRole("region", { name: "Files the write_report call wrote" });

/** The section lists both files, each a link to its download under `base`, and shows the chart, decoded. */
async function expectFiles(page: Page, files: ConversationFile[], base: string): Promise<Record<string, Locator>> {
  const section = filesOf(page);
  await expect(section).toBeVisible();
  await expect(section).toContainText("Files");
  const links: Record<string, Locator> = {};
  for (const file of files) {
    const link = section.getByRole("link", {
      name: new RegExp(`^${escape(file.path)} \\(${escape(humanSize(file.size))}\\)\\s*, download$`),
    });
    await expect(link).toBeVisible();
    await expect(link).toHaveAttribute("href", `${base}/${file.id}?download=1`);
    links[file.name] = link;
  }
  await expect(section.getByRole("link")).toHaveCount(files.length);
  const chart = section.getByRole("img", { name: "chart.png, written by the write_report call" });
  await expect(chart).toBeVisible();
  const chartFile = files.find((file) => file.name === "chart.png")!;
  expect(await chart.getAttribute("src")).toBe(`${base}/${chartFile.id}`);
  // Loaded and decoded: matplotlib's 4×3 in figure at its 100 dpi.
  await expect.poll(() => chart.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth)).toBe(400);
  expect(await chart.evaluate((image: HTMLImageElement) => image.naturalHeight)).toBe(300);
  // Only the image is shown inline: the report is no picture.
  await expect(section.getByRole("img")).toHaveCount(1);
  return links;
}

/**
 * Follow the link as a person does: a download of the file's bytes under its name. The server's answer makes it one
 * by itself (attachment, nosniff, sandboxed): a download is no response event of the page, and Chromium fetches an
 * <a download> outside the page's routes, so the same address is asked again with the same context's cookies.
 */
async function expectDownload(page: Page, link: Locator, file: ConversationFile, content: string) {
  const href = (await link.getAttribute("href"))!;
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  expect(download.suggestedFilename()).toBe(file.name);
  expect(await fs.readFile((await download.path())!, "utf8")).toBe(content);
  expect(await download.failure()).toBeNull();

  const answered = await page.request.get(href);
  expect(answered.status()).toBe(200);
  expect(await answered.text()).toBe(content);
  const headers = answered.headers();
  expect(headers["content-disposition"]).toBe(`attachment; filename="${file.name}"; filename*=UTF-8''${file.name}`);
  expect(headers["content-type"]).toBe("text/csv; charset=utf-8");
  expect(headers["x-content-type-options"]).toBe("nosniff");
  expect(headers["content-security-policy"]).toMatch(/^sandbox/);
}

/** Tab to each link, from the reasoning panel's close button: focused, and its focus drawn. */
async function expectKeyboardReachable(page: Page, files: ConversationFile[]) {
  // In the card's order, each a stop of its own, a few Tabs on from the panel's first control.
  const hrefs = await filesOf(page)
    .getByRole("link")
    .evaluateAll((links) => links.map((a) => a.getAttribute("href")));
  const inOrder = [...files].sort(
    (a, b) => hrefs.findIndex((href) => href!.includes(a.id)) - hrefs.findIndex((href) => href!.includes(b.id)),
  );
  await page.getByRole("button", { name: "Close the reasoning panel" }).focus();
  for (const file of inOrder) {
    await tabTo(page, new RegExp(`^${escape(file.path)}\\s+\\(${escape(humanSize(file.size))}\\)`));
    const link = filesOf(page).getByRole("link", { name: new RegExp(`^${escape(file.path)} `) });
    await expect(link).toBeFocused();
    expect(await focusedName(page)).toContain(file.path);
    const ring = await link.evaluate((element) => {
      const style = getComputedStyle(element);
      // Colours as the screen has them: the backgrounds behind the link painted in turn, then the outline on them.
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 1;
      const paint = canvas.getContext("2d", { willReadFrequently: true })!;
      const pixel = () => Array.from(paint.getImageData(0, 0, 1, 1).data.slice(0, 3));
      const layers: string[] = [];
      for (let node: Element | null = element.parentElement; node; node = node.parentElement)
        layers.unshift(getComputedStyle(node).backgroundColor);
      paint.fillStyle = "#fff";
      paint.fillRect(0, 0, 1, 1);
      for (const layer of layers) {
        paint.fillStyle = layer;
        paint.fillRect(0, 0, 1, 1);
      }
      const behind = pixel();
      paint.fillStyle = style.outlineColor;
      paint.fillRect(0, 0, 1, 1);
      const outline = pixel();
      const luminance = ([r, g, b]: number[]) => {
        const [lr, lg, lb] = [r, g, b].map((c) =>
          c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4,
        );
        return 0.2126 * lr + 0.7152 * lg + 0.0722 * lb;
      };
      const [light, dark] = [luminance(outline), luminance(behind)].sort((a, b) => b - a);
      return {
        focusVisible: element.matches(":focus-visible"),
        style: style.outlineStyle,
        width: parseFloat(style.outlineWidth),
        contrast: (light + 0.05) / (dark + 0.05),
      };
    });
    expect(ring.focusVisible, `${file.path} matches :focus-visible`).toBe(true);
    expect(ring.style, `${file.path}'s outline`).not.toBe("none");
    expect(ring.width, `${file.path}'s outline width`).toBeGreaterThanOrEqual(2);
    // WCAG 1.4.11: a focus indicator stands out from what is behind it by 3:1 at least.
    expect(ring.contrast, `${file.path}'s outline against its background`).toBeGreaterThanOrEqual(3);
  }
}

async function visitorPage(browser: Browser, colorScheme: "light" | "dark") {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme });
  return { context, page: await context.newPage() };
}

for (const colorScheme of ["light", "dark"] as const) {
  test(`files a Python tool writes are listed on its card, downloaded, shared and reached by keyboard (${colorScheme}, 390 px)`, async ({
    page,
    browser,
    servers,
  }) => {
    const prompt = `Write my sales report and chart (${colorScheme}).`;
    servers.model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: {
              name: "write_report",
              description: "Write a sales report and its chart.",
              parameters_schema: ROWS,
              python_code: REPORT_PY,
            },
          },
        ],
      },
      { toolCalls: [{ name: "write_report", args: INPUT }] },
      { text: "Your report and chart are ready." },
    ]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme });
    await page.goto("/");
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed", {
      timeout: 30_000,
    });
    await expect(page).toHaveURL(/\/c\/[\w-]+$/);
    const conversationId = new URL(page.url()).pathname.split("/").at(-1)!;

    // What the server keeps: the two files, as the tool wrote them.
    const conversation = await page.request.get(`/api/conversations/${conversationId}`);
    expect(conversation.ok()).toBe(true);
    const stored = ((await conversation.json()).files as ConversationFile[]).filter((file) =>
      ["report.csv", "chart.png"].includes(file.name),
    );
    expect(stored.map((file) => [file.path, file.mimeType]).sort()).toEqual([
      ["/chart.png", "image/png"],
      ["/report.csv", "text/csv"],
    ]);
    const report = stored.find((file) => file.name === "report.csv")!;
    expect(report.size).toBe(REPORT_CSV.length);
    const files = [report, stored.find((file) => file.name === "chart.png")!];

    await openPanel(page);
    const card = page.getByTestId("tool-call").filter({ has: filesOf(page) });
    await expect(card).toHaveAttribute("data-tool", "write_report");
    await expect(card).toHaveAttribute("data-status", "ok");
    const links = await expectFiles(page, files, "/api/files");
    await expectDownload(page, links["report.csv"], report, REPORT_CSV);

    await expectKeyboardReachable(page, files);
    await expectAccessible(page, `the files a tool wrote, on the owner's card (${colorScheme}, 390 px)`);

    // Through a share link, for a visitor without the owner's cookie: the same files under the link's URLs.
    const share = await page.request.post(`/api/conversations/${conversationId}/share`);
    expect(share.ok()).toBe(true);
    const { url, token } = (await share.json()) as { url: string; token: string };
    const visitor = await visitorPage(browser, colorScheme);
    try {
      await visitor.page.goto(url);
      await expect(visitor.page.getByTestId("shared-banner")).toBeVisible();
      await expect(visitor.page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
      await openPanel(visitor.page);
      const shared = await expectFiles(visitor.page, files, `/api/share/${token}/files`);
      await expectDownload(visitor.page, shared["report.csv"], report, REPORT_CSV);
      // The owner's routes are not the visitor's.
      for (const file of files) expect((await visitor.page.request.get(`/api/files/${file.id}`)).status()).toBe(404);
      await expectKeyboardReachable(visitor.page, files);
      await expectAccessible(visitor.page, `the files a tool wrote, through a share link (${colorScheme}, 390 px)`);
    } finally {
      await visitor.context.close();
    }
  });
}
