import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

process.env.TOOLSMITH_WORKSPACES_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "toolsmith-run-command-"));
type RunCommand = typeof import("@/lib/tools/native/run-command").runCommand;
let runCommand: RunCommand;
beforeAll(async () => {
  ({ runCommand } = await import("@/lib/tools/native/run-command"));
});

type Outcome = {
  ok: boolean;
  output?: { exit_code: number | null; stdout: string; stderr: string; timed_out: boolean };
  error?: string;
  cancelled?: boolean;
};
async function run(
  command: string,
  {
    timeout,
    cwd,
    settings = {},
    signal = new AbortController().signal,
  }: { timeout?: number; cwd?: string; settings?: object; signal?: AbortSignal } = {},
) {
  const parsed = runCommand.parse({ command, timeout, cwd });
  if (!parsed.ok) throw new Error(parsed.problems.join("; "));
  const context = {
    ownerId: "o",
    conversationId: "command-test",
    runId: "r",
    signal,
    tools: { get: () => undefined, add: () => {} },
    settings,
  };
  return (await runCommand.execute(parsed.input, context as never)) as Outcome;
}
const workspace = () => path.join(process.env.TOOLSMITH_WORKSPACES_DIR!, "command-test");

describe("run_command in bubblewrap", () => {
  it("runs plain words in the workspace and returns the exit code and output", async () => {
    expect(await run("echo hello sandbox")).toMatchObject({
      ok: true,
      output: { exit_code: 0, stdout: "hello sandbox\n", timed_out: false },
    });
    expect(await run("touch made-here.txt")).toMatchObject({ ok: true });
    expect(fs.existsSync(path.join(workspace(), "made-here.txt"))).toBe(true);
    expect(await run("ls /nothing-here")).toMatchObject({ ok: true, output: { exit_code: 2 } });
  });

  it("cannot reach the network, not even loopback", async () => {
    const requests: string[] = [];
    const server = http.createServer((req, res) => (requests.push(req.url!), res.end("reached")));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await run(`curl -sS --max-time 3 http://127.0.0.1:${port}/from-the-sandbox`);
      expect(outcome.output!.exit_code).not.toBe(0);
      expect(outcome.output!.stdout).not.toContain("reached");
      expect(requests).toEqual([]);
    } finally {
      server.close();
    }
  });

  it("cannot write outside the workspace", async () => {
    const marker = `toolsmith-escape-${process.pid}`;
    expect((await run("touch /usr/escape")).output!.stderr).toMatch(/Read-only file system/);
    await run(`touch /tmp/${marker}`);
    expect(fs.existsSync(path.join("/tmp", marker))).toBe(false);
    expect((await run("ls /etc/passwd")).output!.exit_code).not.toBe(0);
  });

  it("runs in the cwd it is given, a folder of the workspace, and refuses one outside it with the reason", async () => {
    fs.mkdirSync(path.join(workspace(), "data/raw"), { recursive: true });
    fs.writeFileSync(path.join(workspace(), "data/raw/input.csv"), "a,b\n");
    for (const cwd of ["/data/raw", "data/raw", "/data/../data/raw"])
      expect(await run("ls", { cwd })).toMatchObject({ ok: true, output: { stdout: "input.csv\n" } });
    expect(await run("pwd", { cwd: "/data" })).toMatchObject({ output: { stdout: "/work/data\n" } });
    expect(await run("pwd", { cwd: "/" })).toMatchObject({ output: { stdout: "/work\n" } });
    expect(await run("pwd", { cwd: "../" })).toMatchObject({
      ok: false,
      error: 'cwd: "../" is outside this conversation\'s workspace.',
    });
    expect(await run("pwd", { cwd: "/../../etc" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("outside"),
    });
    expect(await run("pwd", { cwd: "/nowhere" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("does not exist in the workspace"),
    });
    expect(await run("pwd", { cwd: "/data/raw/input.csv" })).toMatchObject({
      ok: false,
      error: expect.stringContaining("not a folder"),
    });
  });

  it("is killed at its timeout, with everything it started, and answers its output so far with timed_out", async () => {
    const started = performance.now();
    const outcome = await run('sh -c "echo started; echo warming up >&2; sleep 30"', { timeout: 1 });
    expect(outcome).toEqual({
      ok: true,
      output: { exit_code: 137, stdout: "started\n", stderr: "warming up\n", timed_out: true, truncated: false },
    });
    expect(performance.now() - started).toBeLessThan(3000);

    const detached = await run("sleep 31.5 & echo started", { settings: { shell: true } });
    expect(detached.output!.stdout).toBe("started\n");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(spawnSync("pgrep", ["-f", "sleep 31.5"]).status).not.toBe(0);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = performance.now();
    expect(await run("sleep 30", { signal: controller.signal })).toMatchObject({ ok: false, cancelled: true });
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it("refuses shell features and commands the profile does not allow", async () => {
    expect(await run("echo hi | cat")).toMatchObject({ ok: false, error: expect.stringContaining("needs a shell") });
    expect(await run("echo $HOME")).toMatchObject({ ok: true, output: { stdout: "\n" } });
    expect(await run("echo hi | tr a-z A-Z", { settings: { shell: true } })).toMatchObject({
      ok: true,
      output: { stdout: "HI\n" },
    });
    expect(await run("ls", { settings: { allowed_commands: ["echo"] } })).toMatchObject({
      ok: false,
      error: expect.stringContaining("not among the commands"),
    });
  });
});
