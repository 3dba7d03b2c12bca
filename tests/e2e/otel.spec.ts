import fs from "node:fs";
import { expect, sendMessage, test } from "./fixtures";

test("the owner downloads a finished run as OpenTelemetry JSON from its header, by keyboard; a link holder is not offered it", async ({
  page,
  browser,
  servers,
}) => {
  const prompt = "Plan a greeting, for the OTLP download.";
  servers.model.script(prompt, [{ toolCalls: [{ name: "think", args: { thought: "Say hi." } }] }, { text: "Hi." }]);
  await page.goto("/");
  await sendMessage(page, prompt);

  const link = page.getByRole("link", { name: "Download run 1 as OpenTelemetry JSON, OTLP" });
  await expect(link).toBeVisible();
  await link.focus();
  await expect(link).toBeFocused();
  const downloading = page.waitForEvent("download");
  await page.keyboard.press("Enter");
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^run-[\w-]+\.otlp\.json$/);
  const trace = JSON.parse(fs.readFileSync((await download.path())!, "utf8"));
  const names = trace.resourceSpans[0].scopeSpans[0].spans.map((span: { name: string }) => span.name).sort();
  expect(names).toEqual(["chat scripted-model", "chat scripted-model", "execute_tool think", "invoke_agent default"]);

  // Someone with the share link sees the run, without the download.
  const conversationId = new URL(page.url()).pathname.split("/").at(-1)!;
  const shared = await page.request.post(`/api/conversations/${conversationId}/share`);
  const { url } = await shared.json();
  const viewer = await (await browser.newContext()).newPage();
  await viewer.goto(url);
  await expect(viewer.getByRole("region", { name: "Run 1" })).toBeVisible();
  await expect(viewer.getByRole("link", { name: /OpenTelemetry/ })).toHaveCount(0);
  await viewer.context().close();
});
