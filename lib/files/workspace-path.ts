import fs from "node:fs/promises";
import path from "node:path";
import { Minimatch } from "minimatch";
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

/** A path as the tools name it: from the workspace's root, which is "/", as in a chroot. */
export const workspaceName = (root: string, target: string) =>
  path.posix.join("/", ...path.relative(root, target).split(path.sep));

/**
 * A profile's `allowed_paths`: globs over workspace names, as the native tools document writes them
 * (`/data/research/**`, `/output/*.csv`). A path is allowed when it, or a folder it is in, matches; an entry without
 * a leading slash is from the root too, so a plain folder (`notes`) allows everything in it.
 */
export class AllowedPaths {
  private readonly globs: Minimatch[];

  constructor(readonly entries: string[]) {
    // No negation or comments: a path is allowed by any entry, and an entry is only ever a glob.
    const options = { dot: true, nonegate: true, nocomment: true };
    this.globs = entries.flatMap((entry) => {
      const glob = path.posix.join("/", entry.replace(/\\/g, "/"));
      return [new Minimatch(glob, options), new Minimatch(path.posix.join(glob, "**"), options)];
    });
  }

  allows(name: string): boolean {
    return this.globs.some((glob) => glob.match(name));
  }

  /** A folder on the way to an allowed path, or in one: list_dir may show it. */
  leadsTo(folder: string): boolean {
    return this.globs.some((glob) => glob.match(folder, true));
  }
}

/**
 * The absolute path a tool may use for `requested`, a path in the workspace: "/" is the workspace's root (as in a
 * chroot), and a path without it is from the root too. No drive paths, no NUL, nothing that resolves outside (`..`),
 * no link whose target is outside, and, when the profile lists `allowed_paths`, only what they allow (for a folder to
 * list, also a folder on the way to what they allow). Throws WorkspaceError with the reason otherwise.
 */
export async function workspacePath(
  root: string,
  requested: string,
  allowed?: AllowedPaths,
  use: "file" | "folder" = "file",
): Promise<string> {
  const shown = `"${requested.slice(0, 200)}"`;
  if (requested.includes("\0")) throw new WorkspaceError("A path may not contain a NUL character.");
  const portable = requested.replace(/\\/g, "/");
  if (/^[a-zA-Z]:/.test(portable))
    throw new WorkspaceError(`${shown} is a drive path; paths are in this conversation's workspace, whose root is /.`);
  const target = path.resolve(root, portable.replace(/^\/+/, ""));
  if (!inside(root, target)) throw new WorkspaceError(`${shown} is outside this conversation's workspace.`);
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
    throw new WorkspaceError(`${shown} goes through a link that points outside the workspace.`);
  const name = workspaceName(root, target);
  if (allowed && !(use === "folder" ? allowed.leadsTo(name) : allowed.allows(name)))
    throw new WorkspaceError(
      `${shown} (${name}) is not in the paths this profile allows (${allowed.entries.join(", ")}).`,
    );
  return target;
}
