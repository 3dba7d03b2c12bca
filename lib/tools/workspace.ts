import fs from "node:fs/promises";
import path from "node:path";
import { workspacesDirectory } from "@/lib/settings/config";

export class WorkspaceError extends Error {}

const workspaceDirectory = (conversationId: string) =>
  path.join(workspacesDirectory(), conversationId.replace(/[^\w-]/g, "_"));

/** A conversation's workspace directory, made on first use. */
export async function workspaceOf(conversationId: string): Promise<string> {
  const root = workspaceDirectory(conversationId);
  await fs.mkdir(root, { recursive: true });
  return fs.realpath(root);
}

/** A deleted conversation's files go with it. */
export async function removeWorkspace(conversationId: string): Promise<void> {
  await fs.rm(workspaceDirectory(conversationId), { recursive: true, force: true });
}

const inside = (root: string, target: string) => target === root || target.startsWith(root + path.sep);

/**
 * The absolute path a tool may use for `requested`, which is relative to the workspace: no absolute or drive
 * paths, no NUL, nothing that resolves outside (`..`), no link whose target is outside, and, when the profile
 * lists `allowed_paths`, only inside one of those. Throws WorkspaceError with the reason otherwise.
 */
export async function workspacePath(root: string, requested: string, allowedPaths?: string[]): Promise<string> {
  if (requested.includes("\0")) throw new WorkspaceError("A path may not contain a NUL character.");
  const portable = requested.replace(/\\/g, "/");
  if (path.isAbsolute(portable) || /^[a-zA-Z]:/.test(portable)) {
    throw new WorkspaceError(
      `Paths are relative to this conversation's workspace; "${requested.slice(0, 200)}" is absolute.`,
    );
  }
  const target = path.resolve(root, portable);
  if (!inside(root, target))
    throw new WorkspaceError(`"${requested.slice(0, 200)}" is outside this conversation's workspace.`);
  // The deepest part of the path that exists decides where a link leads.
  let existing = target;
  while (
    !(await fs.lstat(existing).then(
      () => true,
      () => false,
    ))
  )
    existing = path.dirname(existing);
  if (!inside(root, await fs.realpath(existing)))
    throw new WorkspaceError(`"${requested.slice(0, 200)}" goes through a link that points outside the workspace.`);
  if (
    allowedPaths &&
    !allowedPaths.some((allowed) => inside(path.resolve(root, allowed.replace(/\\/g, "/")), target))
  ) {
    throw new WorkspaceError(
      `"${requested.slice(0, 200)}" is not in the folders this profile allows (${allowedPaths.join(", ")}).`,
    );
  }
  return target;
}
