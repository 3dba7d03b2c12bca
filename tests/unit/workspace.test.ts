import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-workspaces-"));
process.env.TOOLSMITH_WORKSPACES_DIR = base;

type Workspace = typeof import("@/lib/files/workspace-path");
type Files = typeof import("@/lib/tools/native/files");
let workspace: Workspace;
let files: Files;
let root: string;

beforeAll(async () => {
  workspace = await import("@/lib/files/workspace-path");
  files = await import("@/lib/tools/native/files");
  root = await workspace.workspaceOf("conversation-1");
  fs.mkdirSync(path.join(root, "notes"), { recursive: true });
  // links a file tool must never follow out of the workspace
  fs.symlinkSync("/etc", path.join(root, "etc-link"));
  fs.symlinkSync("/etc/hostname", path.join(root, "hostname-link"));
  fs.symlinkSync(path.join(root, "notes"), path.join(root, "notes-link"));
});

const context = (settings = {}) => ({
  ownerId: "owner",
  conversationId: "conversation-1",
  runId: "run",
  signal: new AbortController().signal,
  tools: { get: () => undefined, add: () => {} },
  settings,
});

describe("workspace paths", () => {
  it.each([
    "..",
    "../",
    "../outside.txt",
    "../../etc/passwd",
    "../conversation-2/secret.txt",
    "notes/../../outside.txt",
    "notes/./../../outside.txt",
    "a/b/c/../../../../outside.txt",
    "./../outside.txt",
    "notes//..//..//outside.txt",
    "..\\outside.txt",
    "notes\\..\\..\\outside.txt",
    "/..",
    "/../outside.txt",
    "//../outside.txt",
    "/data/../../outside.txt",
    "C:\\Windows\\win.ini",
    "c:/windows/win.ini",
    "notes/\0/../../outside.txt",
    "file.txt\0.png",
    "etc-link/passwd",
    "etc-link",
    "hostname-link",
    "etc-link/../../outside.txt",
  ])("refuses %j", async (requested) => {
    await expect(workspace.workspacePath(root, requested)).rejects.toBeInstanceOf(workspace.WorkspaceError);
  });

  it.each([
    "notes/todo.md",
    "./notes",
    "notes/../todo.md",
    "a/b/c.txt",
    "notes-link/inside.txt",
    "..hidden",
    "~/x",
    "%2e%2e/x",
  ])("allows %j inside the workspace", async (requested) => {
    const resolved = await workspace.workspacePath(root, requested);
    expect(resolved === root || resolved.startsWith(root + path.sep)).toBe(true);
  });

  it.each([
    ["/data/config.yaml", "data/config.yaml"],
    ["/", ""],
    ["//etc/passwd", "etc/passwd"],
    ["\\\\server\\share\\file", "server/share/file"],
    ["/notes/../todo.md", "todo.md"],
  ])("takes the absolute path %j from the workspace's root, as a chroot would", async (requested, inRoot) => {
    expect(await workspace.workspacePath(root, requested)).toBe(path.join(root, inRoot));
  });

  describe("allowed_paths, the native tools document's globs", () => {
    const refusal = /is not in the paths this profile allows/;
    const check = (requested: string, entries: string[], use?: "file" | "folder") =>
      workspace.workspacePath(root, requested, new workspace.AllowedPaths(entries), use);

    it.each([
      ["/data/research/paper.md", ["/data/research/**"]],
      ["data/research/2024/deep/notes.txt", ["/data/research/**"]],
      ["/data/research/.hidden", ["/data/research/**"]],
      ["/output/result.txt", ["/output/**"]],
      ["/output/table.csv", ["/output/*.csv"]],
      ["/notes/a.txt", ["notes"]],
      ["/anything/at/all", ["/**"]],
    ])("%j is allowed by %j", async (requested, entries) => {
      await expect(check(requested, entries)).resolves.toBe(path.join(root, requested));
    });

    it.each([
      ["/data/secret.txt", ["/data/research/**"]],
      ["/data/research-old/paper.md", ["/data/research/**"]],
      ["/data/research/../secret.txt", ["/data/research/**"]],
      ["/result.txt", ["/output/**"]],
      ["/output/table.txt", ["/output/*.csv"]],
      ["/notes-other/a.txt", ["notes"]],
      ["/other/a.txt", ["notes", "/output/**"]],
    ])("%j is refused by %j", async (requested, entries) => {
      await expect(check(requested, entries)).rejects.toThrow(refusal);
    });

    it("lets list_dir open the folders on the way to what is allowed, and nothing beside it", async () => {
      for (const folder of ["/", "/data", "/data/research", "/data/research/2024"])
        await expect(check(folder, ["/data/research/**"], "folder")).resolves.toBeTruthy();
      for (const folder of ["/output", "/data/other"])
        await expect(check(folder, ["/data/research/**"], "folder")).rejects.toThrow(refusal);
      // a folder is not a file to read
      await expect(check("/data/research", ["/data/research/**"])).rejects.toThrow(refusal);
    });
  });
});

describe("read_file, write_file, list_dir", () => {
  const run = async <
    T extends { execute: (input: never, context: never) => unknown; parse: (input: unknown) => unknown },
  >(
    tool: T,
    input: unknown,
    settings = {},
  ) => {
    const parsed = tool.parse(input) as { ok: true; input: never };
    return (await tool.execute(parsed.input, context(settings) as never)) as {
      ok: boolean;
      output?: Record<string, unknown>;
      error?: string;
    };
  };

  it("write, append, read back and list, as text and as bytes", async () => {
    expect(await run(files.writeFile, { path: "notes/todo.md", content: "one\n" })).toMatchObject({
      ok: true,
      output: { bytes_written: 4 },
    });
    expect(await run(files.writeFile, { path: "notes/todo.md", content: "two\n", mode: "append" })).toMatchObject({
      ok: true,
      output: { size: 8 },
    });
    expect(await run(files.readFile, { path: "notes/todo.md" })).toMatchObject({
      ok: true,
      output: { content: "one\ntwo\n", encoding: "utf-8" },
    });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 255]).toString("base64");
    await run(files.writeFile, { path: "notes/pixel.png", content: png, encoding: "base64" });
    expect(await run(files.readFile, { path: "notes/pixel.png" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("binary: true"),
    });
    expect(await run(files.readFile, { path: "notes/pixel.png", binary: true })).toMatchObject({
      ok: true,
      output: { content: png },
    });
    const listed = await run(files.listDir, { path: "notes", pattern: "*.md" });
    expect(listed.output).toMatchObject({ entries: [{ name: "todo.md", type: "file", size: 8 }], truncated: false });
  });

  it("refuse escapes, links out, missing files and files over the size limit, writing nothing outside", async () => {
    expect(await run(files.writeFile, { path: "../escaped.txt", content: "x" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("outside"),
    });
    expect(await run(files.writeFile, { path: "etc-link/evil", content: "x" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("link"),
    });
    expect(await run(files.readFile, { path: "hostname-link" })).toMatchObject({ ok: false });
    expect(fs.existsSync(path.join(base, "escaped.txt"))).toBe(false);
    expect(await run(files.readFile, { path: "nothing.txt" })).toMatchObject({
      ok: false,
      error: "nothing.txt does not exist in the workspace.",
    });
    expect(await run(files.writeFile, { path: "big.txt", content: "x".repeat(1024 * 1024 + 1) })).toMatchObject({
      ok: false,
      error: expect.stringContaining("up to"),
    });
    expect(
      await run(files.writeFile, { path: "other/a.txt", content: "x" }, { allowed_paths: ["notes"] }),
    ).toMatchObject({ ok: false, error: expect.stringContaining("not in the paths") });
  });

  it("read text in the encoding named: Node's encodings, any other refused with the list", async () => {
    // "café £5" in latin1: é is 0xe9 and £ is 0xa3, neither of them UTF-8
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0xa3, 0x35]);
    await run(files.writeFile, { path: "/legacy/menu.txt", content: latin1.toString("base64"), encoding: "base64" });
    expect(await run(files.readFile, { path: "/legacy/menu.txt" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("name its encoding"),
    });
    for (const encoding of ["latin1", "LATIN1", "binary"])
      expect(await run(files.readFile, { path: "/legacy/menu.txt", encoding })).toMatchObject({
        ok: true,
        output: { content: "café £5", encoding, size: 7 },
      });
    expect(await run(files.readFile, { path: "/legacy/menu.txt", encoding: "base64" })).toMatchObject({
      output: { content: latin1.toString("base64"), encoding: "base64" },
    });
    expect(await run(files.readFile, { path: "/legacy/menu.txt", encoding: "hex" })).toMatchObject({
      output: { content: "636166e920a335" },
    });
    expect(await run(files.writeFile, { path: "/legacy/utf16.txt", content: "hé", encoding: "utf16le" })).toMatchObject(
      { output: { bytes_written: 4 } },
    );
    expect(await run(files.readFile, { path: "/legacy/utf16.txt", encoding: "utf16le" })).toMatchObject({
      output: { content: "hé" },
    });
    const unknown = {
      ok: false,
      problems: [expect.stringMatching(/^encoding: "klingon" is not an encoding Node supports; use utf-8, .*latin1/)],
    };
    expect(files.readFile.parse({ path: "/legacy/menu.txt", encoding: "klingon" })).toEqual(unknown);
    expect(files.writeFile.parse({ path: "/legacy/menu.txt", content: "x", encoding: "klingon" })).toEqual(unknown);
    expect(await run(files.readFile, { path: "/legacy/menu.txt", binary: true, encoding: "latin1" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("binary: true reads base64"),
    });
  });

  it("take the native tools document's own paths: /data/config.yaml is in the workspace", async () => {
    expect(await run(files.writeFile, { path: "/data/config.yaml", content: "mode: fast\n" })).toMatchObject({
      ok: true,
    });
    expect(fs.readFileSync(path.join(root, "data/config.yaml"), "utf8")).toBe("mode: fast\n");
    expect(await run(files.readFile, { path: "/data/config.yaml" })).toMatchObject({
      output: { content: "mode: fast\n" },
    });
    expect(await run(files.listDir, { path: "/data", pattern: "*.yaml" })).toMatchObject({
      output: { entries: [{ name: "config.yaml", type: "file" }] },
    });
    expect((await run(files.listDir, {})).output!.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "data", type: "dir" })]),
    );
    expect(await run(files.readFile, { path: "/../conversation-2/secret.txt" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("outside"),
    });
  });

  it("keep a profile's allowed_paths globs, listing only what they allow and the folders on the way", async () => {
    await run(files.writeFile, { path: "/data/research/paper.md", content: "findings" });
    await run(files.writeFile, { path: "/data/secret.txt", content: "keys" });
    const researcher = { allowed_paths: ["/data/research/**"] };
    expect(await run(files.readFile, { path: "/data/research/paper.md" }, researcher)).toMatchObject({
      output: { content: "findings" },
    });
    expect(await run(files.readFile, { path: "/data/secret.txt" }, researcher)).toMatchObject({
      ok: false,
      error: '"/data/secret.txt" (/data/secret.txt) is not in the paths this profile allows (/data/research/**).',
    });
    const names = async (folder: string, settings: object) =>
      ((await run(files.listDir, { path: folder }, settings)).output?.entries as { name: string }[]).map(
        (entry) => entry.name,
      );
    expect(await names("/", researcher)).toEqual(["data"]);
    expect(await names("/data", researcher)).toEqual(["research"]);
    expect(await names("/data/research", researcher)).toEqual(["paper.md"]);
    expect(await run(files.listDir, { path: "/legacy" }, researcher)).toMatchObject({ ok: false });

    const writer = { allowed_paths: ["/output/**"] };
    expect(await run(files.writeFile, { path: "/output/result.txt", content: "Hello, world!" }, writer)).toMatchObject({
      ok: true,
      output: { bytes_written: 13 },
    });
    expect(await run(files.writeFile, { path: "/result.txt", content: "x" }, writer)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not in the paths this profile allows (/output/**)"),
    });
    expect(fs.existsSync(path.join(root, "result.txt"))).toBe(false);
  });
});
