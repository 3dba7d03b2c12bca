import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversationFile } from "@/lib/contract/responses";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { listed, PNG, SALES, sendWithFiles, upload, uploaded } from "../support/files";
import { scriptedApp, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { readSse } from "../support/sse";

/*
 * Files as people and tools meet them through the server: an upload, the message that attaches it and what the
 * model is told, tools of each kind reading it and writing results, the downloads and who may have them.
 */

const model = new ModelServer();
let app: AppServer;

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_PYTHON_WORKERS: "1", TOOLSMITH_FILE_MAX_MB: "1" });
  await app.start();
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

describe("uploads", () => {
  it("stores a file with a plain, unique name and a sniffed type, and serves it back safely", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const [first] = await uploaded(api, id, [["../../etc/sales.csv", SALES, "image/png"]]);
    expect(first).toMatchObject({ name: "sales.csv", path: "/sales.csv", size: SALES.length, mimeType: "text/csv" });
    expect(first).toMatchObject({ source: "upload", messageId: null, url: `/api/files/${first.id}` });
    const [second] = await uploaded(api, id, [["sales.csv", SALES]]);
    expect(second.name).toBe("sales-2.csv");

    const download = await api.fetch(first.url);
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(SALES);
    expect(download.headers.get("content-disposition")).toMatch(/^attachment; filename="sales.csv"/);
    expect(download.headers.get("x-content-type-options")).toBe("nosniff");
    expect(download.headers.get("content-security-policy")).toMatch(/^sandbox/);

    // HTML disguised as an image is HTML, and never shown inline.
    const [page] = await uploaded(api, id, [["cat.png", "<!doctype html><script>alert(1)</script>", "image/png"]]);
    expect(page.mimeType).toBe("text/html");
    const served = await api.fetch(page.url);
    expect(served.headers.get("content-disposition")).toMatch(/^attachment/);
    const [image] = await uploaded(api, id, [["dot.png", PNG]]);
    expect((await api.fetch(image.url)).headers.get("content-disposition")).toMatch(/^inline/);

    expect((await listed(api, id)).map((file) => file.name)).toEqual([
      "sales.csv",
      "sales-2.csv",
      "cat.png",
      "dot.png",
    ]);
    expect((await api.fetch(second.url, { method: "DELETE" })).status).toBe(204);
    expect((await api.fetch(second.url)).status).toBe(404);
    expect((await listed(api, id)).map((file) => file.name)).not.toContain("sales-2.csv");
  });

  it("refuses what is not an upload, or too large, with a sentence and no file left behind", async () => {
    const api = new Api(app.url);
    const { id } = await api.createConversation();
    const notMultipart = await sendJson(api, `/api/conversations/${id}/files`, "POST", { file: "x" });
    expect(notMultipart.status).toBe(400);
    expect((await notMultipart.json()).error.message).toMatch(/multipart\/form-data/);
    const big = await upload(api, id, [
      ["small.txt", "fine"],
      ["big.bin", new Uint8Array(1024 * 1024 + 1)],
    ]);
    expect(big.status).toBe(413);
    expect((await big.json()).error.message).toMatch(/big\.bin.*1 MB/);
    expect(await listed(api, id)).toEqual([]);
  });

  it("answers 404 for another identity's conversation and files, on every route", async () => {
    const [owner, stranger] = [new Api(app.url), new Api(app.url)];
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["notes.txt", "secret"]]);
    expect((await upload(stranger, id, [["x.txt", "x"]])).status).toBe(404);
    expect((await stranger.fetch(`/api/conversations/${id}/files`)).status).toBe(404);
    expect((await stranger.fetch(file.url)).status).toBe(404);
    expect((await stranger.fetch(file.url, { method: "DELETE" })).status).toBe(404);
    const stranger2 = await stranger.createConversation();
    expect((await sendWithFiles(stranger, stranger2.id, "Use it", [file.id])).status).toBe(400);
    expect(await (await owner.fetch(file.url)).text()).toBe("secret");
  });

  it("opens a shared conversation's files under the link, until the link is revoked", async () => {
    const owner = new Api(app.url);
    const { id } = await owner.createConversation();
    const [file] = await uploaded(owner, id, [["notes.txt", "shared words"]]);
    const share = (await expectJson(await sendJson(owner, `/api/conversations/${id}/share`, "POST", {}), 201)) as {
      token: string;
    };
    const reader = new Api(app.url);
    const trace = (await expectJson(await reader.fetch(`/api/share/${share.token}`), 200)) as {
      files: ConversationFile[];
    };
    expect(trace.files[0].url).toBe(`/api/share/${share.token}/files/${file.id}`);
    expect(await (await reader.fetch(trace.files[0].url)).text()).toBe("shared words");
    expect((await reader.fetch(file.url)).status).toBe(404);
    expect((await owner.fetch(`/api/conversations/${id}/share`, { method: "DELETE" })).status).toBe(204);
    expect((await reader.fetch(trace.files[0].url)).status).toBe(404);
  });
});

describe("a message with files", () => {
  it("tells the model about them, and tools read them and write results that become the conversation's files", async () => {
    const api = new Api(app.url);
    const prompt = "Total the sales by region.";
    const python = [
      "import pandas as pd",
      "",
      "def run(inputs):",
      '    df = pd.read_csv("/mnt/data/sales.csv")',
      '    df.sort_values("amount").to_csv("/mnt/data/report.csv", index=False)',
      '    return {"total": int(df["amount"].sum())}',
      "",
    ].join("\n");
    const javascript = [
      "async function run() {",
      '  const text = await files.read("/report.csv");',
      '  await files.write("/out/lines.txt", String(text.trim().split("\\n").length));',
      "  return (await files.list('/')).map((entry) => entry.name).sort();",
      "}",
    ].join("\n");
    const schema = { type: "object" };
    model.script(prompt, [
      {
        toolCalls: [
          {
            name: "register_tool",
            args: { name: "total_sales", description: "Totals.", parameters_schema: schema, python_code: python },
          },
        ],
      },
      { toolCalls: [{ name: "total_sales", args: {} }] },
      {
        toolCalls: [
          {
            name: "register_tool",
            args: { name: "count_lines", description: "Counts.", parameters_schema: schema, code: javascript },
          },
        ],
      },
      { toolCalls: [{ name: "count_lines", args: {} }] },
      { toolCalls: [{ name: "read_file", args: { path: "/out/lines.txt" } }] },
      { text: "North and south lead." },
    ]);
    const { id } = await api.createConversation();
    const [sales, dot] = await uploaded(api, id, [
      ["sales.csv", SALES],
      ["dot.png", PNG],
    ]);
    const events = readSse(await sendWithFiles(api, id, prompt, [sales.id, dot.id]));
    const messages = await events;
    expect(messages.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });

    // The model read the files' paragraph, the CSV's first rows, and got the image as an image.
    const [first] = model.requestsFor(prompt);
    const user = first.messages.findLast((message) => message.role === "user")!;
    const parts = user.content as { type: string; text?: string; image_url?: { url: string } }[];
    expect(parts[0]).toEqual({ type: "text", text: prompt });
    expect(parts[1].text).toContain(`/sales.csv (text/csv, ${SALES.length} bytes)`);
    expect(parts[1].text).toMatch(/\/mnt\/data\/sales\.csv/);
    expect(parts[1].text).toMatch(/south.*32/s);
    expect(parts[2]).toMatchObject({
      type: "image_url",
      image_url: { url: expect.stringMatching(/^data:image\/png;base64,/) },
    });

    const results = ofType(messages, "tool_result");
    const total = results.find((result) => result.name === "total_sales")!;
    expect(total.error).toBeUndefined();
    expect(total).toMatchObject({ ok: true, output: { total: 49 } });
    expect(total.files).toEqual([
      expect.objectContaining({ name: "report.csv", path: "/report.csv", mimeType: "text/csv" }),
    ]);
    const counted = results.find((result) => result.name === "count_lines")!;
    expect(counted).toMatchObject({ ok: true, output: ["dot.png", "out", "report.csv", "sales.csv"] });
    expect(counted.files).toEqual([expect.objectContaining({ path: "/out/lines.txt" })]);
    expect(results.find((result) => result.name === "read_file")).toMatchObject({ ok: true, output: { content: "4" } });
    // The next request told the model of the file the tool wrote.
    const observed = JSON.stringify(model.requestsFor(prompt)[2].messages.at(-1));
    expect(observed).toMatch(/Wrote \/report\.csv/);

    const files = await listed(api, id);
    const report = files.find((file) => file.name === "report.csv")!;
    expect(report).toMatchObject({ source: "tool", writtenBy: { tool: "total_sales", callId: expect.any(String) } });
    expect(await (await api.fetch(report.url)).text()).toBe("region,amount\neast,7\nnorth,10\nsouth,32\n");
    expect(files.filter((file) => file.messageId !== null).map((file) => file.name)).toEqual(["sales.csv", "dot.png"]);

    // An attached file is attached once.
    expect((await sendWithFiles(api, id, "Again", [sales.id])).status).toBe(400);
  });
});

describe("API paths that are no route", () => {
  it("answer 404 with JSON, whatever the method and body", async () => {
    const api = new Api(app.url);
    await api.identity();
    const get = await api.fetch("/api/no-such-thing");
    expect(get.status).toBe(404);
    expect((await get.json()).error).toEqual({
      code: "not_found",
      message: expect.stringMatching(/No API route answers GET \/api\/no-such-thing/),
    });
    const form = new FormData();
    form.append("file", new Blob(["x"]), "x.txt");
    const post = await api.fetch("/api/conversations/x/y/z", { method: "POST", body: form });
    expect(post.status).toBe(404);
    expect((await post.json()).error.message).toMatch(/No API route/);
  });
});
