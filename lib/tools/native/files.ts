import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { minimatch } from "minimatch";
import { z } from "zod";
import { callWorkspace, defineTool, refused } from "@/lib/tools/define-tool";
import type { ToolContext, ToolResult } from "@/lib/tools/types";
import { AllowedPaths, WorkspaceError, workspaceName, workspacePath } from "@/lib/files/workspace-path";

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_ENTRIES = 500;
const ENCODINGS = "utf-8, utf16le, latin1, ascii, base64, base64url or hex";
const filePath = z
  .string()
  .min(1)
  .max(1024)
  .describe("A path in this conversation's workspace, whose root is /: e.g. /data/config.yaml (or data/config.yaml).");
/** Node's own encodings, in any case: what Buffer reads and writes. */
const encoding = z
  .string()
  .max(32)
  .refine((name) => Buffer.isEncoding(name), {
    error: (issue) => `"${String(issue.input).slice(0, 32)}" is not an encoding Node supports; use ${ENCODINGS}`,
  });
const isUtf8 = (name: string) => /^utf-?8$/i.test(name);

/** Resolve the path in the conversation's workspace and run `work`; a refused path or a missing file is an observation. */
async function inWorkspace(
  requested: string,
  context: ToolContext,
  use: "file" | "folder",
  work: (target: string, root: string, allowed?: AllowedPaths) => Promise<ToolResult>,
): Promise<ToolResult> {
  try {
    const root = await callWorkspace(context);
    const listed = context.settings.allowed_paths;
    const allowed = listed && new AllowedPaths(listed);
    return await work(await workspacePath(root, requested, allowed, use), root, allowed);
  } catch (error) {
    if (error instanceof WorkspaceError) return refused(error.message);
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
  usesWorkspace: true,
  description:
    "Read a file of this conversation's workspace, whose root is / (e.g. /data/config.yaml), up to " +
    `${MAX_FILE_BYTES / 1024} KB. Returns content: text in the file's encoding (utf-8 unless you name another), ` +
    "or base64 with binary: true.",
  inputSchema: z.strictObject({
    path: filePath,
    encoding: encoding.optional().describe(`The file's text encoding: ${ENCODINGS}. Default utf-8.`),
    binary: z.boolean().default(false).describe("Return the bytes as base64 (the same as encoding: base64)."),
  }),
  async execute({ path: requested, encoding: named, binary }, context) {
    if (binary && named !== undefined && named.toLowerCase() !== "base64")
      return { ok: false, error: `binary: true reads base64; leave out encoding: ${named}, or binary.` };
    const chosen = binary ? "base64" : (named ?? "utf-8");
    return inWorkspace(requested, context, "file", async (target) => {
      // O_NOFOLLOW: a link put in place after the path was checked is refused, not followed.
      const file = await fs.open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const { size } = await file.stat();
        if (size > MAX_FILE_BYTES)
          return { ok: false, error: `${requested} is ${size} bytes; read_file reads up to ${MAX_FILE_BYTES}.` };
        const bytes = await file.readFile();
        if (!isUtf8(chosen))
          return { ok: true, output: { content: bytes.toString(chosen as BufferEncoding), encoding: chosen, size } };
        try {
          return {
            ok: true,
            output: { content: new TextDecoder("utf-8", { fatal: true }).decode(bytes), encoding: chosen, size },
          };
        } catch {
          return {
            ok: false,
            error: `${requested} is not UTF-8 text; name its encoding (e.g. latin1), or read it with binary: true.`,
          };
        }
      } finally {
        await file.close();
      }
    });
  },
});

export const writeFile = defineTool({
  name: "write_file",
  usesWorkspace: true,
  description:
    "Write (or append to) a file of this conversation's workspace, whose root is / (e.g. /output/result.txt), " +
    `making its folders; files up to ${MAX_FILE_BYTES / 1024} KB. Returns bytes_written.`,
  inputSchema: z.strictObject({
    path: filePath,
    content: z.string().describe("The text to write, in the encoding named (base64 for bytes)."),
    mode: z.enum(["overwrite", "append"]).default("overwrite"),
    encoding: encoding.default("utf-8").describe(`How to write content: ${ENCODINGS}.`),
  }),
  execute: ({ path: requested, content, mode, encoding: chosen }, context) =>
    inWorkspace(requested, context, "file", async (target, root, allowed) => {
      const bytes = Buffer.from(content, chosen as BufferEncoding);
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
      await workspacePath(root, workspaceName(root, target), allowed);
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
  usesWorkspace: true,
  description:
    "List a folder of this conversation's workspace, whose root is / (e.g. /data), optionally only the names " +
    `matching a glob (e.g. *.xml). Returns entries (name, type, size, modified), up to ${MAX_ENTRIES}.`,
  inputSchema: z.strictObject({
    path: filePath.default("/"),
    pattern: z.string().max(200).default("*").describe("Glob for the names, e.g. *.csv."),
  }),
  execute: ({ path: requested, pattern }, context) =>
    inWorkspace(requested, context, "folder", async (target, root, allowed) => {
      // With allowed_paths, only what the profile allows, and the folders on the way to it.
      const shown = (await fs.readdir(target, { withFileTypes: true }))
        .filter((entry) => minimatch(entry.name, pattern, { dot: true }))
        .filter((entry) => {
          if (!allowed) return true;
          const name = workspaceName(root, path.join(target, entry.name));
          return entry.isDirectory() ? allowed.leadsTo(name) : allowed.allows(name);
        })
        .map((entry) => entry.name)
        .sort();
      const entries = await Promise.all(
        shown.slice(0, MAX_ENTRIES).map(async (name) => {
          const stat = await fs.lstat(path.join(target, name));
          return {
            name,
            type: stat.isSymbolicLink() ? "link" : stat.isDirectory() ? "dir" : "file",
            size: stat.size,
            modified: stat.mtime.toISOString(),
          };
        }),
      );
      return { ok: true, output: { entries, truncated: shown.length > MAX_ENTRIES } };
    }),
});
