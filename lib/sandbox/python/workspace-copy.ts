import fs from "node:fs/promises";
import { createReadStream, createWriteStream } from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { stampOf, walkFiles, type FileStamp } from "@/lib/platform/file-tree";

/**
 * The workspace's files into the slot's inbox, a host folder the jail sees read-only at /mnt/inbox, from which the
 * call's child copies them into its /mnt/data (harness.py) before the code runs; their stamps, to tell what the call
 * changed (the child keeps each file's time).
 */
export async function copyTree(workspace: string, inbox: string): Promise<Map<string, FileStamp>> {
  const copied = new Map<string, FileStamp>();
  for (const name of (await walkFiles(workspace)).keys()) {
    const target = path.join(inbox, name);
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fs.copyFile(path.join(workspace, name), target);
    await fs.chmod(target, 0o644);
    copied.set(name, stampOf(await fs.lstat(target)));
  }
  return copied;
}

/**
 * What the call changed in /mnt/data (its child gone, nothing changes it now), back into the workspace: new and
 * changed files copied, deleted ones deleted. Nothing is written through a link of the workspace's (run_command
 * may leave one), nor outside it.
 */
export async function copyBack(dataDir: string, workspace: string, copied: Map<string, FileStamp>): Promise<void> {
  const root = await fs.realpath(workspace);
  const found = await walkFiles(dataDir);
  for (const [name, stamp] of found) {
    const before = copied.get(name);
    if (before && before.size === stamp.size && before.mtimeMs === stamp.mtimeMs) continue;
    const target = await insideWorkspace(root, name);
    // Streamed: the kernel's file-to-file copy fails across the jail's /proc/<pid>/root (EOVERFLOW).
    await pipeline(createReadStream(path.join(dataDir, name)), createWriteStream(target));
  }
  for (const name of copied.keys())
    if (!found.has(name)) await fs.rm(await insideWorkspace(root, name), { force: true });
}

/** The workspace's path for `name`, its folders made, with no link on the way or at the end. */
async function insideWorkspace(root: string, name: string): Promise<string> {
  const folder = path.join(root, path.dirname(name));
  await fs.mkdir(folder, { recursive: true });
  const real = await fs.realpath(folder);
  if (real !== root && !real.startsWith(root + path.sep)) throw new Error(`/${name} leads out of the workspace.`);
  const target = path.join(real, path.basename(name));
  if ((await fs.lstat(target).catch(() => undefined))?.isSymbolicLink()) await fs.rm(target);
  return target;
}
