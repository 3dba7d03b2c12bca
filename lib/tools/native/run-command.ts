import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "shell-quote";
import { z } from "zod";
import { bubblewrapAvailable, bubblewrapMissing, jailArgs } from "@/lib/sandbox/bubblewrap";
import { callWorkspace, defineTool, refused } from "@/lib/tools/define-tool";
import type { ToolResult } from "@/lib/tools/types";
import { WorkspaceError, workspaceName, workspacePath } from "@/lib/files/workspace-path";

const MAX_TIMEOUT_SECONDS = 120;
const OUTPUT_BYTES = 64 * 1024;
/** Address space and CPU time of the command (prlimit), on top of the wall clock. */
const MEMORY_BYTES = 512 * 1024 * 1024;
const CPU_SECONDS = 60;

/**
 * bubblewrap's sandbox: no network (every namespace unshared), the system read-only, a private /tmp, the
 * conversation's workspace the only writable host folder (/work), no host environment, and the command killed with
 * its whole process group at the timeout. It starts in `folder`, a folder of /work.
 */
function sandboxArgs(workspace: string, folder: string): string[] {
  return [
    ...jailArgs(),
    "--bind",
    workspace,
    "/work",
    "--chdir",
    folder,
    "--setenv",
    "PATH",
    "/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/work",
    "--",
    "prlimit",
    `--as=${MEMORY_BYTES}`,
    `--cpu=${CPU_SECONDS}`,
    "--",
  ];
}

/** The command as words, without a shell: operators, globs and substitutions are refused unless the profile allows a shell. */
function commandWords(command: string, shell: boolean): string[] | string {
  if (shell) return ["sh", "-c", command];
  const words = parse(command);
  const special = words.find((word) => typeof word !== "string");
  if (special)
    return `"${command.slice(0, 200)}" needs a shell (${JSON.stringify(special)}); this profile runs commands without one: give plain words.`;
  return words as string[];
}

function collect(stream: NodeJS.ReadableStream) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  stream.on("data", (chunk: Buffer) => {
    if (size >= OUTPUT_BYTES) return void (truncated = true);
    chunks.push(chunk.subarray(0, OUTPUT_BYTES - size));
    size += chunk.length;
    if (size > OUTPUT_BYTES) truncated = true;
  });
  return () => ({ text: Buffer.concat(chunks).toString("utf8"), truncated });
}

/**
 * Where the command starts in the sandbox: `cwd`, a folder of the workspace as the file tools name it; or why not
 * (a path outside the workspace is refused by policy, a missing folder is a plain failure).
 */
async function startingFolder(workspace: string, cwd: string | undefined): Promise<{ folder: string } | ToolResult> {
  if (cwd === undefined) return { folder: "/work" };
  try {
    const folder = await workspacePath(workspace, cwd);
    if (!(await fs.stat(folder)).isDirectory()) return { ok: false, error: `cwd "${cwd}" is a file, not a folder.` };
    return { folder: path.posix.join("/work", workspaceName(workspace, folder)) };
  } catch (error) {
    if (error instanceof WorkspaceError) return refused(`cwd: ${error.message}`);
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { ok: false, error: `cwd "${cwd}" does not exist in the workspace; make the folder first.` };
    throw error;
  }
}

export const runCommand = defineTool({
  name: "run_command",
  usesWorkspace: true,
  description:
    "Run a command in an isolated sandbox: no network, the system read-only, this conversation's workspace as the " +
    `writable folder /work (the file tools' /data is /work/data here), ${MEMORY_BYTES / 1024 / 1024} MB of memory, ` +
    "a timeout. Plain words, no shell features, unless the profile allows a shell. Returns exit_code, stdout and " +
    "stderr; a command still running at its timeout is killed and answers what it printed so far, with " +
    "timed_out: true.",
  inputSchema: z.strictObject({
    command: z.string().min(1).max(4000).describe("e.g. `ls -la` or `wc -l notes.txt`."),
    timeout: z.number().int().min(1).max(MAX_TIMEOUT_SECONDS).default(30).describe("Seconds."),
    cwd: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        "The folder to run in, a folder of the workspace named as the file tools do (/data); default its root.",
      ),
  }),
  async execute({ command, timeout, cwd }, context): Promise<ToolResult> {
    const { signal, settings } = context;
    if (!bubblewrapAvailable()) return { ok: false, error: bubblewrapMissing("run_command") };
    const words = commandWords(command, settings.shell === true);
    if (typeof words === "string") return refused(words);
    if (settings.allowed_commands && !settings.allowed_commands.includes(words[0]))
      return refused(
        `${words[0]} is not among the commands this profile allows (${settings.allowed_commands.join(", ")}).`,
      );
    const workspace = await callWorkspace(context);
    const start = await startingFolder(workspace, cwd);
    if (!("folder" in start)) return start;
    const child = spawn("bwrap", [...sandboxArgs(workspace, start.folder), ...words], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const [stdout, stderr] = [collect(child.stdout), collect(child.stderr)];
    const kill = () => child.pid && process.kill(-child.pid, "SIGKILL");
    let timedOut = false;
    const timer = setTimeout(() => ((timedOut = true), kill()), timeout * 1000);
    signal.addEventListener("abort", kill, { once: true });
    const exitCode = await new Promise<number | null>((resolve) =>
      child
        // Killed by a signal: the shell's convention, 128 + its number (137 at the timeout).
        .on("close", (code, killedBy) => resolve(code ?? (killedBy ? 128 + os.constants.signals[killedBy] : null)))
        .on("error", () => resolve(null)),
    );
    clearTimeout(timer);
    signal.removeEventListener("abort", kill);
    if (signal.aborted) return { ok: false, error: "The command was stopped: the run was cancelled.", cancelled: true };
    const [out, err] = [stdout(), stderr()];
    return {
      ok: true,
      output: {
        exit_code: exitCode,
        stdout: out.text,
        stderr: err.text,
        timed_out: timedOut,
        truncated: out.truncated || err.truncated,
      },
    };
  },
});
