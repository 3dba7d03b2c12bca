import { constants, createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { stampOf, walkFiles, type FileStamp } from "@/lib/platform/file-tree";

/**
 * The workspace's files into the slot's inbox, a host folder the jail sees read-only at /mnt/inbox, from which the
 * call's child copies them into its /mnt/data (harness.py) before the code runs; their stamps, to tell what the call
 * changed (the child keeps each file's time). Stops at once when `signal` aborts (the call ended meanwhile).
 */
export async function copyTree(workspace: string, inbox: string, signal: AbortSignal): Promise<Map<string, FileStamp>> {
  const copied = new Map<string, FileStamp>();
  for (const name of (await walkFiles(workspace)).files.keys()) {
    signal.throwIfAborted();
    const target = path.join(inbox, name);
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fs.copyFile(path.join(workspace, name), target);
    await fs.chmod(target, 0o644);
    copied.set(name, stampOf(await fs.lstat(target)));
  }
  return copied;
}

/**
 * What the call changed in /mnt/data (its child gone, nothing changes it now), back into the workspace: deleted files
 * deleted (unless the walk was cut, when a file not seen may still be there), then new and changed files copied, a
 * file where a folder was (or the reverse) taking its place. Nothing is written through a link of the workspace's
 * (run_command may leave one), nor outside it.
 */
export async function copyBack(dataDir: string, workspace: string, copied: Map<string, FileStamp>): Promise<void> {
  const root = await fs.realpath(workspace);
  const { files: found, truncated } = await walkFiles(dataDir);
  if (!truncated)
    for (const name of copied.keys())
      if (!found.has(name)) await fs.rm(await insideWorkspace(root, name), { force: true, recursive: true });
  for (const [name, stamp] of found) {
    const before = copied.get(name);
    if (before && before.size === stamp.size && before.mtimeMs === stamp.mtimeMs) continue;
    const target = await insideWorkspace(root, name);
    const written = await fs.open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
    );
    // Streamed: the kernel's file-to-file copy fails across the jail's /proc/<pid>/root (EOVERFLOW).
    await pipeline(createReadStream(path.join(dataDir, name)), written.createWriteStream());
  }
}

/**
 * The workspace's path for `name`, its folders made (a file in the way of one removed), with no link on the way or
 * at the end, and no folder where the file goes.
 */
async function insideWorkspace(root: string, name: string): Promise<string> {
  let folder = root;
  for (const part of path.dirname(name) === "." ? [] : path.dirname(name).split("/")) {
    folder = path.join(folder, part);
    const stat = await fs.lstat(folder).catch(() => undefined);
    if (stat && !stat.isDirectory()) await fs.rm(folder);
    if (!stat?.isDirectory()) await fs.mkdir(folder);
  }
  const real = await fs.realpath(folder);
  if (real !== root && !real.startsWith(root + path.sep)) throw new Error(`/${name} leads out of the workspace.`);
  const target = path.join(real, path.basename(name));
  const stat = await fs.lstat(target).catch(() => undefined);
  if (stat?.isSymbolicLink() || stat?.isDirectory()) await fs.rm(target, { recursive: true });
  return target;
}
