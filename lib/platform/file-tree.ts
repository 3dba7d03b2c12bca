import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";

/** What a walk of a folder a tool wrote into takes in, at most: a tree made to be endless is cut, not followed. */
export interface WalkLimits {
  maxEntries: number;
  maxDepth: number;
}

export const WALK_LIMITS: WalkLimits = { maxEntries: 2_000, maxDepth: 16 };

/** The identity of a file's version as the folder shows it: changed when any of these changed. */
export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export const stampOf = (stat: Stats): FileStamp => ({ size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino });
export const sameStamp = (a: FileStamp, b: FileStamp) =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/**
 * The regular files under `root`, by their path from it with `/` between folders. Links, sockets and other special
 * files are passed over, never followed (what wrote the folder may have been hostile); so is anything past `limits`.
 */
export async function walkFiles(root: string, limits: WalkLimits = WALK_LIMITS): Promise<Map<string, FileStamp>> {
  const found = new Map<string, FileStamp>();
  let entries = 0;
  const visit = async (folder: string, prefix: string, depth: number): Promise<void> => {
    const listed = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of listed.sort((a, b) => a.name.localeCompare(b.name))) {
      if (++entries > limits.maxEntries) return;
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory() && depth < limits.maxDepth) await visit(full, relative, depth + 1);
      else if (entry.isFile()) {
        const stat = await fs.lstat(full).catch(() => undefined);
        if (stat?.isFile()) found.set(relative, stampOf(stat));
      }
    }
  };
  await visit(root, "", 1);
  return found;
}

/**
 * Remove everything in `root`, keeping the folder (as `mode`): folders the writer made unreadable or unwritable are
 * opened up first (their owner may do that), and links are removed, never followed.
 */
export async function emptyFolder(root: string, mode = 0o755): Promise<void> {
  await fs.chmod(root, mode);
  const listed = await fs.readdir(root, { withFileTypes: true });
  await Promise.all(
    listed.map(async (entry) => {
      const full = path.join(root, entry.name);
      if (!entry.isDirectory()) return fs.rm(full, { force: true });
      await emptyFolder(full, 0o700);
      await fs.rmdir(full);
    }),
  );
}
