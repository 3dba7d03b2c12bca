// `npm run setup [-- --with-tests]`: installs the Debian packages of scripts/debian-packages.txt that are missing,
// the `[runtime]` group and, with --with-tests, the `[tests]` group. Plain Node without dependencies, so it runs
// before `npm install`. When everything is there it only asks dpkg, and changes nothing.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { debianPackages } from "./debian-packages.mjs";

const args = process.argv.slice(2);
if (args.some((arg) => arg !== "--with-tests"))
  fail(`unknown argument in "${args.join(" ")}" (there is --with-tests)`, 2);
const groups = args.includes("--with-tests") ? ["runtime", "tests"] : ["runtime"];
const packages = listed(groups);

const query = spawnSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Status}\n", ...packages], { encoding: "utf8" });
if (query.error || !works("apt-get", "--version")) {
  console.warn(`setup: warning: no dpkg-query or apt-get, so not Debian. Install your system's equivalents of:`);
  console.warn(`  ${packages.join(" ")}`);
  console.warn("setup: without them the app still runs, and Python tools and run_command say they are off.");
  process.exit(0);
}
const installed = query.stdout.split("\n").filter((line) => line.endsWith(" installed"));
const missing = packages.filter((name) => !installed.includes(`${name} installed`));
if (missing.length === 0) {
  console.log(`setup: the ${packages.length} Debian packages (${groups.join(", ")}) are installed.`);
  process.exit(0);
}

const commands = [
  ["apt-get", "update"],
  ["apt-get", "install", "-y", "--no-install-recommends", ...missing],
];
// As root no prefix; else sudo, if it runs without asking for a password; else say what to run.
const prefix = process.getuid() === 0 ? [] : works("sudo", "-n", "true") ? ["sudo"] : undefined;
if (!prefix) {
  const sudo = works("sudo", "--version") ? "sudo " : "";
  const how = sudo ? "sudo asks for a password, so run" : "there is no sudo, so as root run";
  fail(
    `missing Debian packages: ${missing.join(" ")}. Installing them needs root; ${how}:\n` +
      `  ${commands.map((command) => sudo + command.join(" ")).join(" && ")}`,
  );
}
for (const command of commands) {
  const argv = [...prefix, ...command];
  console.log(`setup: ${argv.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const result = spawnSync(argv[0], argv.slice(1), { stdio: "inherit", env });
  if (result.status !== 0)
    fail(`${argv.join(" ")} failed (${result.error?.message ?? `exit status ${result.status}`}).`);
}
console.log(`setup: installed ${missing.join(" ")}.`);

/** The packages of `groups` in the list. */
function listed(groups) {
  try {
    return debianPackages(fs.readFileSync(new URL("debian-packages.txt", import.meta.url), "utf8"), groups);
  } catch (error) {
    fail(error.message);
  }
}

function works(command, ...args) {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

function fail(message, status = 1) {
  console.error(`setup: ${message}`);
  process.exit(status);
}
