import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { minimatch } from "minimatch";
import { z } from "zod";
import { conversationOf, defineTool } from "./define-tool";
import type { ToolContext, ToolResult } from "./types";
import { WorkspaceError, workspaceOf, workspacePath } from "./workspace";

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_ENTRIES = 500;
const filePath = z
  .string()
  .min(1)
  .max(1024)
  .describe("A path inside this conversation's workspace, e.g. notes/todo.md.");

/** Resolve the path in the conversation's workspace and run `work`; a refused path or a missing file is an observation. */
async function inWorkspace(
  requested: string,
  context: ToolContext,
  work: (target: string, root: string) => Promise<ToolResult>,
): Promise<ToolResult> {
  try {
    const root = await workspaceOf(conversationOf(context));
    return await work(await workspacePath(root, requested, context.settings.allowed_paths), root);
  } catch (error) {
    if (error instanceof WorkspaceError) return { ok: false, error: error.message };
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, error: `${requested} does not exist in the workspace.` };
    if (code === "ELOOP") return { ok: false, error: `${requested} is a link; the file tools do not follow links.` };
    if (code === "EISDIR" || code === "ENOTDIR")
      return { ok: false, error: `${requested} is ${code === "EISDIR" ? "a folder" : "not a folder"}.` };
    throw error;
  }
}

export const readFile = defineTool({
  name: "read_file",
  description: `Read a file of this conversation's workspace (up to ${MAX_FILE_BYTES / 1024} KB): text, or base64 with binary: true.`,
  inputSchema: z.strictObject({
    path: filePath,
    binary: z.boolean().default(false).describe("Return the bytes as base64."),
  }),
  execute: ({ path: requested, binary }, context) =>
    inWorkspace(requested, context, async (target) => {
      // O_NOFOLLOW: a link put in place after the path was checked is refused, not followed.
      const file = await fs.open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const { size } = await file.stat();
        if (size > MAX_FILE_BYTES)
          return { ok: false, error: `${requested} is ${size} bytes; read_file reads up to ${MAX_FILE_BYTES}.` };
        const bytes = await file.readFile();
        if (binary) return { ok: true, output: { content: bytes.toString("base64"), encoding: "base64", size } };
        try {
          return {
            ok: true,
            output: { content: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: "utf-8", size },
          };
        } catch {
          return { ok: false, error: `${requested} is not UTF-8 text; read it with binary: true.` };
        }
      } finally {
        await file.close();
      }
    }),
});

export const writeFile = defineTool({
  name: "write_file",
  description: `Write (or append to) a file of this conversation's workspace, making its folders; files up to ${MAX_FILE_BYTES / 1024} KB.`,
  inputSchema: z.strictObject({
    path: filePath,
    content: z.string().describe("Text, or base64 with encoding: base64."),
    mode: z.enum(["overwrite", "append"]).default("overwrite"),
    encoding: z.enum(["utf-8", "base64"]).default("utf-8"),
  }),
  execute: ({ path: requested, content, mode, encoding }, context) =>
    inWorkspace(requested, context, async (target, root) => {
      const bytes = Buffer.from(content, encoding === "base64" ? "base64" : "utf8");
      const existing =
        mode === "append"
          ? await fs.stat(target).then(
              (stat) => stat.size,
              () => 0,
            )
          : 0;
      if (existing + bytes.length > MAX_FILE_BYTES)
        return {
          ok: false,
          error: `${requested} would be ${existing + bytes.length} bytes; files may hold up to ${MAX_FILE_BYTES}.`,
        };
      await fs.mkdir(path.dirname(target), { recursive: true });
      // The folders just made are checked again: nothing on the way may lead out of the workspace.
      await workspacePath(root, path.relative(root, target), context.settings.allowed_paths);
      const flags =
        constants.O_WRONLY |
        constants.O_CREAT |
        constants.O_NOFOLLOW |
        (mode === "append" ? constants.O_APPEND : constants.O_TRUNC);
      const file = await fs.open(target, flags, 0o644);
      try {
        await file.write(bytes);
      } finally {
        await file.close();
      }
      return { ok: true, output: { bytes_written: bytes.length, size: existing + bytes.length } };
    }),
});

export const listDir = defineTool({
  name: "list_dir",
  description: `List a folder of this conversation's workspace (up to ${MAX_ENTRIES} entries), optionally only names matching a glob.`,
  inputSchema: z.strictObject({
    path: filePath.default("."),
    pattern: z.string().max(200).default("*").describe("Glob for the names, e.g. *.csv."),
  }),
  execute: ({ path: requested, pattern }, context) =>
    inWorkspace(requested, context, async (target) => {
      const names = (await fs.readdir(target)).filter((name) => minimatch(name, pattern, { dot: true })).sort();
      const entries = await Promise.all(
        names.slice(0, MAX_ENTRIES).map(async (name) => {
          const stat = await fs.lstat(path.join(target, name));
          return {
            name,
            type: stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file",
            size: stat.size,
            modified: stat.mtime.toISOString(),
          };
        }),
      );
      return { ok: true, output: { entries, truncated: names.length > MAX_ENTRIES } };
    }),
});
