import { constants } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { CodeWorkspace, FilesRequest } from "@/lib/sandbox";
import { workspaceName, workspacePath } from "./workspace-path";

/** What JavaScript's files.read takes and files.write gives, as text or base64: the read_file tool's own bound. */
const CODE_FILE_BYTES = 1024 * 1024;
const LISTED_ENTRIES = 500;

/**
 * The conversation's workspace for a call's code: the folder (Python's /mnt/data is its copy) and JavaScript's
 * `files` (list, read, write), with the file tools' path rules: from the root "/", nothing outside, no link out.
 */
export function codeWorkspace(folder: string): CodeWorkspace {
  return { folder, files: (request) => serve(folder, request) };
}

async function serve(root: string, request: FilesRequest): Promise<unknown> {
  const encoding = request.op === "list" ? undefined : (request.encoding ?? "utf-8");
  if (encoding !== undefined && !["utf-8", "utf8", "base64"].includes(encoding))
    throw new Error(`files: encoding is "utf-8" (the default) or "base64", not "${String(encoding).slice(0, 20)}".`);
  try {
    if (request.op === "list") {
      const folder = await workspacePath(root, request.path ?? "/", undefined, "folder");
      const entries = (await fs.readdir(folder, { withFileTypes: true })).slice(0, LISTED_ENTRIES);
      return Promise.all(
        entries.map(async (entry) => ({
          name: entry.name,
          path: workspaceName(root, path.join(folder, entry.name)),
          type: entry.isDirectory() ? "dir" : entry.isFile() ? "file" : "other",
          size: entry.isFile() ? (await fs.lstat(path.join(folder, entry.name))).size : 0,
        })),
      );
    }
    const target = await workspacePath(root, request.path);
    if (request.op === "read") {
      const handle = await fs.open(target, constants.O_RDONLY | constants.O_NOFOLLOW);
      try {
        const { size } = await handle.stat();
        if (size > CODE_FILE_BYTES)
          throw new Error(`files.read: ${request.path} is ${size} bytes; code reads up to ${CODE_FILE_BYTES} at once.`);
        return (await handle.readFile()).toString(encoding as BufferEncoding);
      } finally {
        await handle.close();
      }
    }
    const bytes = Buffer.from(request.content, encoding as BufferEncoding);
    if (bytes.length > CODE_FILE_BYTES)
      throw new Error(`files.write: ${bytes.length} bytes is more than the ${CODE_FILE_BYTES} code writes at once.`);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // The folders just made are checked again: nothing on the way may lead out of the workspace.
    await workspacePath(root, workspaceName(root, target));
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
    await fs.writeFile(target, bytes, { flag: flags });
    return { path: workspaceName(root, target), size: bytes.length };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new Error(`files: ${request.path} does not exist in the workspace.`);
    if (code === "EISDIR" || code === "ENOTDIR")
      throw new Error(`files: ${request.path} is not a ${request.op === "list" ? "folder" : "file"}.`);
    throw error;
  }
}
