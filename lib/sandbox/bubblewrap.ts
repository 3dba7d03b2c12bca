import { spawnSync } from "node:child_process";

let status: { available: boolean } | undefined;

/** Whether bubblewrap runs here. Features that need it are off without it, and say how to turn them on. */
export function bubblewrapAvailable(): boolean {
  status ??= { available: spawnSync("bwrap", ["--version"], { encoding: "utf8" }).status === 0 };
  return status.available;
}

/** Why `feature` is off on a server without bubblewrap, in words an operator can act on. */
export function bubblewrapMissing(feature: string): string {
  return `bubblewrap is not installed on the server (Debian: apt-get install bubblewrap), so ${feature} is off.`;
}

/**
 * The jail every sandboxed process starts from: every namespace unshared (no network, no other processes, no
 * host IPC), the system read-only, a private /tmp (of `scratchBytes` at most), no host environment, and death with
 * its parent. Callers add their binds and the command; `proc: false` leaves /proc out altogether.
 */
export function jailArgs({ proc = true, scratchBytes }: { proc?: boolean; scratchBytes?: number } = {}): string[] {
  return [
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--ro-bind",
    "/usr",
    "/usr",
    "--symlink",
    "usr/lib",
    "/lib",
    "--symlink",
    "usr/lib64",
    "/lib64",
    "--symlink",
    "usr/bin",
    "/bin",
    "--symlink",
    "usr/sbin",
    "/sbin",
    ...(proc ? ["--proc", "/proc"] : []),
    "--dev",
    "/dev",
    ...(scratchBytes ? ["--size", String(scratchBytes)] : []),
    "--tmpfs",
    "/tmp",
    "--clearenv",
  ];
}
