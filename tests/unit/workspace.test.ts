import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

const base = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-workspaces-"));
process.env.TOOLSMITH_WORKSPACES_DIR = base;

type Workspace = typeof import("@/lib/tools/workspace");
type Files = typeof import("@/lib/tools/files");
let workspace: Workspace;
let files: Files;
let root: string;

beforeAll(async () => {
  workspace = await import("@/lib/tools/workspace");
  files = await import("@/lib/tools/files");
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
    "/etc/passwd",
    "/",
    "//etc/passwd",
    "C:\\Windows\\win.ini",
    "c:/windows/win.ini",
    "\\\\server\\share\\file",
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

  it("keeps a profile's allowed_paths", async () => {
    await expect(workspace.workspacePath(root, "notes/a.txt", ["notes"])).resolves.toContain("notes");
    await expect(workspace.workspacePath(root, "other/a.txt", ["notes"])).rejects.toThrow(
      /not in the folders this profile allows/,
    );
    await expect(workspace.workspacePath(root, "notes-other/a.txt", ["notes"])).rejects.toThrow(/not in the folders/);
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
    ).toMatchObject({ ok: false, error: expect.stringContaining("not in the folders") });
  });
});
