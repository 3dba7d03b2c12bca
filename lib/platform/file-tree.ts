import { execFile } from "node:child_process";
import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

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

/** What a walk found: the regular files by path, and whether it stopped at a limit (then absence proves nothing). */
export interface Walk {
  files: Map<string, FileStamp>;
  truncated: boolean;
}

/**
 * The regular files under `root`, by their path from it with `/` between folders. Links, sockets and other special
 * files are passed over, never followed (what wrote the folder may have been hostile); so is anything past `limits`,
 * and the walk says it was cut.
 */
export async function walkFiles(root: string, limits: WalkLimits = WALK_LIMITS): Promise<Walk> {
  const files = new Map<string, FileStamp>();
  let entries = 0;
  let truncated = false;
  const visit = async (folder: string, prefix: string, depth: number): Promise<void> => {
    const listed = await fs.readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of listed.sort((a, b) => a.name.localeCompare(b.name))) {
      if (++entries > limits.maxEntries) return void (truncated = true);
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) {
        if (depth < limits.maxDepth) await visit(full, relative, depth + 1);
        else truncated = true;
      } else if (entry.isFile()) {
        const stat = await fs.lstat(full).catch(() => undefined);
        if (stat?.isFile()) files.set(relative, stampOf(stat));
      }
    }
  };
  await visit(root, "", 1);
  return { files, truncated };
}

/**
 * Remove everything in `root`, keeping the folder (as `mode`): folders the writer made unreadable or unwritable are
 * opened up first (their owner may do that), and links are removed, never followed.
 */
export async function emptyFolder(root: string, mode = 0o755): Promise<void> {
  try {
    await emptyEach(root, mode);
  } catch (error) {
    // Deeper than a path can name (ENAMETOOLONG): rm walks it by relative steps, as the zygote empties /tmp.
    if ((error as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw error;
    const entries = await fs.readdir(root);
    if (entries.length > 0)
      await execFileAsync("rm", ["-rf", "--one-file-system", "--", ...entries.map((name) => path.join(root, name))]);
  }
}

async function emptyEach(root: string, mode: number): Promise<void> {
  await fs.chmod(root, mode);
  const listed = await fs.readdir(root, { withFileTypes: true });
  await Promise.all(
    listed.map(async (entry) => {
      const full = path.join(root, entry.name);
      if (!entry.isDirectory()) return fs.rm(full, { force: true });
      await emptyEach(full, 0o700);
      await fs.rmdir(full);
    }),
  );
}
