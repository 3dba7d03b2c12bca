import http from "node:http";
import type { AddressInfo } from "node:net";
import { chromiumLaunchOptions } from "../../playwright.config";
import { scriptedApp } from "../support/app-server";
import { expect, sendMessage, test } from "./fixtures";

/** A local server standing for another site; Chromium resolves evil.test and images.test to it. */
class OtherSite {
  readonly requests: string[] = [];
  private server?: http.Server;
  port = 0;

  constructor(private readonly page: (url: URL) => string | undefined) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      this.requests.push(req.url!);
      const html = this.page(new URL(req.url!, "http://x"));
      if (html) res.writeHead(200, { "content-type": "text/html" }).end(html);
      else
        res
          .writeHead(200, { "content-type": "image/png" })
          .end(
            Buffer.from(
              "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
              "base64",
            ),
          );
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => this.server?.close(() => resolve()));
  }
}

test.use({
  launchOptions: {
    ...chromiumLaunchOptions,
    args: [...chromiumLaunchOptions.args, "--host-resolver-rules=MAP evil.test 127.0.0.1, MAP images.test 127.0.0.1"],
  },
});

test("a hostile site's auto-submitted forms change nothing and cannot sign the visitor out", async ({
  page,
  context,
  servers,
}) => {
  const prompt = "Remember this conversation.";
  servers.model.script(prompt, [{ text: "Remembered." }]);
  await page.goto("/");
  await sendMessage(page, prompt);
  await expect(page.getByTestId("assistant-message")).toHaveAttribute("data-run-status", "completed");
  const conversationUrl = page.url();
  const conversationId = conversationUrl.split("/").at(-1)!;
  const identityBefore = (await context.cookies()).find((cookie) => cookie.name === "toolsmith_id")!.value;

  const app = servers.app.url;
  const forms: Record<string, string> = {
    "/new-chat": `<form method="POST" action="${app}/api/conversations"></form>`,
    "/send": `<form method="POST" enctype="text/plain" action="${app}/api/conversations/${conversationId}/messages"><input name='{"content":"pwned","x":"' value='"}'></form>`,
    "/share": `<form method="POST" action="${app}/api/conversations/${conversationId}/share"></form>`,
    "/fork": `<form method="POST" action="${app}/api/share/whatever/fork"></form>`,
  };
  const evil = new OtherSite(
    (url) =>
      forms[url.pathname] &&
      `<!doctype html><title>Win a prize</title>${forms[url.pathname]}<script>document.forms[0].submit()</script>`,
  );
  await evil.start();
  try {
    for (const path of Object.keys(forms)) {
      const landed = page.waitForURL((url) => url.origin === app);
      await page.goto(`http://evil.test:${evil.port}${path}`);
      await landed;
      await expect(page.locator("body")).toContainText("another site");
    }
  } finally {
    await evil.stop();
  }

  const identityAfter = (await context.cookies()).find((cookie) => cookie.name === "toolsmith_id")!.value;
  expect(identityAfter).toBe(identityBefore);
  await page.goto(conversationUrl);
  await expect(page.getByTestId("user-message")).toHaveText([prompt]);
  await expect(page.getByTestId("conversation-list").getByRole("link")).toHaveCount(1);
  const shareLink = await page.request.get(`${app}/api/conversations/${conversationId}/share`);
  expect(shareLink.status()).toBe(404);
});

test("a remote image in an answer is a link, not a request, unless its host is allowed", async ({ page, servers }) => {
  const images = new OtherSite(() => undefined);
  await images.start();
  const imageUrl = `http://images.test:${images.port}/pixel.png?secret=s3cr3t`;
  const prompt = "Show me a picture.";
  servers.model.script(prompt, [
    {
      text: `Here it is: ![a pixel](${imageUrl}) and inline ![dot](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==)`,
    },
  ]);
  const allowing = scriptedApp(servers.model.url, { TOOLSMITH_IMAGE_HOSTS: `http://images.test:${images.port}` });
  await allowing.start();
  try {
    await page.goto("/");
    await sendMessage(page, prompt);
    const answer = page.getByTestId("assistant-message");
    await expect(answer).toHaveAttribute("data-run-status", "completed");
    await expect(answer.getByTestId("blocked-image")).toHaveText(/Image not loaded: a pixel \(images\.test:\d+\)/);
    await expect(answer.getByTestId("blocked-image")).toHaveAttribute("href", imageUrl);
    await expect(answer.getByRole("img", { name: "dot" })).toBeVisible();
    await page.waitForTimeout(300);
    expect(images.requests).toEqual([]);

    await page.goto(`${allowing.url}/`);
    await sendMessage(page, prompt);
    await expect(page.getByTestId("assistant-message").getByRole("img", { name: "a pixel" })).toBeVisible();
    await expect.poll(() => images.requests[0]).toBe("/pixel.png?secret=s3cr3t");
  } finally {
    await allowing.stop();
    await images.stop();
  }
});
