// /mnt/data and /mnt/inbox as an attacker meets them, through the production server, on one Python slot
// (TOOLSMITH_PYTHON_WORKERS=1: every call, of every identity, is a child of the same zygote and sees the same two
// folders). Identity A plants what it can there (files, unreadable folders, links, FIFOs, deep trees, thousands of
// files), in its conversation with a secret upload and through POST /api/tools/{id}/execute; identity B's next calls
// must see only B's own files, and A's next ones nothing of B's. Then the copy back into a conversation's files
// (lib/sandbox/python/workspace-copy.ts): links to the host, files replaced by links, hard links, writes into the
// read-only inbox, hostile names, more entries than the walk takes, a tmpfs filled; and what a tool's files mean to
// the conversation (pandas reading an upload, to_csv into a folder, a deletion, a rewrite with the same bytes, a call
// that timed out). The attacks that need os or open run with the policy check off
// (TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY=1), so that the jail and the copy alone hold.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, expectJson, ofType, sendJson } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";

const hex = () => randomBytes(8).toString("hex");
/** In every server's environment: a copy of /proc/self/environ would carry it. */
const ENV_CANARY = `env-canary-${hex()}`;
/** A host file's content, which no conversation file may ever hold. */
const HOST_CANARY = `host-canary-${hex()}`;
const hostCanaryFile = path.join(os.tmpdir(), `toolsmith-workspace-canary-${hex()}`);
/** What the host's /etc/passwd starts with, and what a server's environment holds. */
const HOST_MARKS = [HOST_CANARY, ENV_CANARY, "root:x:0:0", "DATABASE_URL=", "TOOLSMITH_DATA_DIR="];

const model = new ModelServer();

interface Server {
  name: string;
  env: Record<string, string>;
  /** TOOLSMITH_DATA_DIR: the workspaces are in its `workspaces` folder. */
  dataDir: string;
  /** The server, and the attacker and the other identity, once the model server is up. */
  app: AppServer;
  a: Api;
  b: Api;
}

const serverOf = (name: string, env: Record<string, string>) => ({ name, env, dataDir: tempDataDir() }) as Server;

/** The production server on one Python slot, its workspaces in the server's own data folder. */
async function start(server: Server): Promise<void> {
  server.app = scriptedApp(model.url, {
    TOOLSMITH_PYTHON_WORKERS: "1",
    TOOLSMITH_DATA_DIR: server.dataDir,
    TOOLSMITH_TOOL_TIMEOUT_MS: "10000",
    TOOLSMITH_RATE_UPLOADS_PER_MINUTE: "10000",
    // Room for a listing of what a call sees.
    TOOLSMITH_TOOL_OUTPUT_CHARS: "100000",
    TOOLSMITH_WORKSPACE_TEST_CANARY: ENV_CANARY,
    ...server.env,
  });
  await server.app.start();
  [server.a, server.b] = [new Api(server.app.url), new Api(server.app.url)];
  expect(await server.a.identity()).not.toBe(await server.b.identity());
}

const withPolicy = serverOf("with the policy", {});
const withoutPolicy = serverOf("without the policy", { TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY: "1" });
/**
 * A short clock (400 ms), the policy off: a call times out soon, also while the host is still copying a large
 * workspace into the slot's inbox.
 */
const shortClock = serverOf("with a short clock", {
  TOOLSMITH_UNSAFE_SKIP_PYTHON_POLICY: "1",
  TOOLSMITH_TOOL_TIMEOUT_MS: "400",
});
const servers = [withPolicy, withoutPolicy, shortClock];

beforeAll(async () => {
  fs.writeFileSync(hostCanaryFile, HOST_CANARY);
  await model.start();
  await Promise.all(servers.map(start));
}, 180_000);
afterAll(async () => {
  await Promise.all(servers.map((server) => server.app?.stop()));
  await model.stop();
  fs.rmSync(hostCanaryFile, { force: true });
});

interface StoredFile {
  id: string;
  name: string;
  path: string;
  size: number;
  source: string;
  url: string;
  createdAt: string;
  updatedAt: string;
}

interface ToolResult {
  ok: boolean;
  output?: unknown;
  error?: string;
  files?: { path: string }[];
  deletedFiles?: string[];
  refusedFiles?: string[];
}

const python = (...lines: string[]) => `${lines.join("\n")}\n`;

let tools = 0;
/** A library tool of `client`'s (its name unique), registered as the API does: the check runs, examples none. */
async function register(client: Api, code: string): Promise<{ id: string; name: string }> {
  const name = `workspace_tool_${++tools}`;
  const response = await sendJson(client, "/api/tools", "POST", {
    name,
    description: "A Python tool of the workspace attacks.",
    parameters_schema: { type: "object" },
    code,
    language: "python",
  });
  const body = await expectJson(response, 201);
  return { id: body.id, name };
}

/** A call outside any conversation: POST /api/tools/{id}/execute. */
async function execute(client: Api, tool: { id: string }, input: unknown = {}): Promise<ToolResult> {
  const response = await sendJson(client, `/api/tools/${tool.id}/execute`, "POST", { input });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as ToolResult;
}

let prompts = 0;
/** A call in the conversation, as the model makes it (by name: a library tool is loaded when called). */
async function callIn(client: Api, conversationId: string, tool: { name: string }, input: unknown = {}) {
  const prompt = `Workspace call ${++prompts}.`;
  model.script(prompt, [
    { toolCalls: [{ name: tool.name, args: input as Record<string, unknown> }] },
    { text: "Done." },
  ]);
  const events = await client.run(conversationId, prompt);
  const shown = JSON.stringify(events.map((event) => event.data)).slice(0, 4000);
  expect(ofType(events, "run_finished")[0], shown).toMatchObject({ status: "completed" });
  const result = ofType(events, "tool_result").find((event) => event.name === tool.name);
  expect(result, shown).toBeDefined();
  return result as unknown as ToolResult;
}

/** The model calls a built-in tool of the default profile (write_file) in the conversation. */
async function callBuiltin(client: Api, conversationId: string, name: string, input: Record<string, unknown>) {
  return callIn(client, conversationId, { name }, input);
}

async function upload(client: Api, conversationId: string, name: string, bytes: string): Promise<StoredFile> {
  const form = new FormData();
  form.append("file", new Blob([bytes]), name);
  const response = await client.fetch(`/api/conversations/${conversationId}/files`, { method: "POST", body: form });
  return ((await expectJson(response, 201)) as { files: StoredFile[] }).files[0];
}

const listed = async (client: Api, conversationId: string) =>
  ((await expectJson(await client.fetch(`/api/conversations/${conversationId}/files`), 200)) as { files: StoredFile[] })
    .files;

async function bytesOf(client: Api, file: StoredFile): Promise<string> {
  const response = await client.fetch(file.url);
  expect(response.status, `GET ${file.url} (${JSON.stringify(file.path)})`).toBe(200);
  return Buffer.from(await response.arrayBuffer()).toString("latin1");
}

/** Every file of the conversation with its bytes: none may hold anything of the host's. */
async function expectNoHostBytes(client: Api, conversationId: string) {
  for (const file of await listed(client, conversationId)) {
    const bytes = await bytesOf(client, file);
    for (const mark of HOST_MARKS) expect(bytes, `${file.path} holds ${mark}`).not.toContain(mark);
  }
}

/** Free bytes of the file system that holds `folder`, as fs.statfs says. */
const freeBytes = (folder: string) => {
  const stats = fs.statfsSync(folder);
  return stats.bavail * stats.bsize;
};

// --- The tools -------------------------------------------------------------------------------------------------

/**
 * What a call sees, recursively, never following a link: each entry of /mnt/data, /mnt/inbox and /tmp with its
 * kind (ls's first letter) and a regular file's first bytes; the folders' errors; the roots' modes.
 */
const LIST = python(
  "import os",
  "import stat",
  "",
  "",
  "def run(inputs):",
  "    seen = {}",
  '    for root in ["/mnt/data", "/mnt/inbox", "/tmp"]:',
  "        entries, errors, count = [], [], 0",
  "        for folder, dirs, files in os.walk(root, onerror=lambda error: errors.append(str(error))):",
  "            for name in sorted(dirs + files):",
  "                count += 1",
  "                full = os.path.join(folder, name)",
  "                if len(entries) >= 100:",
  "                    continue",
  "                try:",
  "                    info = os.lstat(full)",
  "                except OSError as error:",
  "                    errors.append(str(error))",
  "                    continue",
  '                entry = {"path": full[len(root):], "kind": stat.filemode(info.st_mode)[0]}',
  "                if stat.S_ISREG(info.st_mode):",
  "                    try:",
  '                        with open(full, "rb") as handle:',
  '                            entry["text"] = handle.read(100).decode("utf-8", "replace")',
  "                    except OSError as error:",
  '                        entry["text"] = "unreadable: " + str(error)',
  "                entries.append(entry)",
  "        mode = oct(os.lstat(root).st_mode & 0o7777)",
  '        seen[root] = {"count": count, "entries": entries, "errors": errors[:10], "mode": mode}',
  "    return seen",
);

/** The slot's zygote as a call sees it: json.dumps's address, the same in every child of one zygote. */
const ZYGOTE_PROBE = python("import json", "", "", "def run(inputs):", "    return hex(id(json.dumps))");

interface Listing {
  count: number;
  entries: { path: string; kind: string; text?: string }[];
  errors: string[];
  mode: string;
}
type Seen = Record<"/mnt/data" | "/mnt/inbox" | "/tmp", Listing>;

/**
 * A's plant, the policy off: a copy of A's upload and A's secret in files (one unreadable, one in folders made
 * unreadable), links into the inbox, /tmp, itself and /, FIFOs, `many` files, a tree `depth` folders deep (of
 * 48-character names: 120 is past what a host path holds), /tmp too, and /mnt/data itself made unreadable last.
 */
/** What the policy-off tools start with: os, and a helper that writes a text file. */
const WITH_WRITE = python(
  "import os",
  "",
  "",
  "def write(path, text):",
  '    with open(path, "w") as handle:',
  "        handle.write(text)",
  "",
  "",
);

const PLANT =
  WITH_WRITE +
  python(
    "def run(inputs):",
    '    secret = inputs["secret"]',
    "    try:",
    '        with open("/mnt/data/a-secret.csv") as handle:',
    "            upload = handle.read()",
    "    except OSError:",
    '        upload = ""',
    '    os.makedirs("/mnt/data/zz-stash/locked/inner", exist_ok=True)',
    '    write("/mnt/data/zz-stash/locked/inner/copy.csv", upload + secret)',
    '    os.chmod("/mnt/data/zz-stash/locked/inner", 0)',
    '    os.chmod("/mnt/data/zz-stash/locked", 0)',
    '    write("/mnt/data/zz-plain.txt", secret)',
    '    os.chmod("/mnt/data/zz-plain.txt", 0)',
    '    os.mkfifo("/mnt/data/zz-fifo")',
    '    os.symlink("/mnt/inbox/a-secret.csv", "/mnt/data/zz-link-inbox")',
    '    os.symlink("/tmp/zz-a-tmp.txt", "/mnt/data/zz-link-tmp")',
    '    os.symlink("zz-link-loop", "/mnt/data/zz-link-loop")',
    '    os.symlink("/", "/mnt/data/zz-link-root")',
    '    write("/tmp/zz-a-tmp.txt", secret + upload)',
    '    os.mkfifo("/tmp/zz-a-fifo")',
    '    os.mkdir("/mnt/data/zz-many")',
    '    for index in range(inputs["many"]):',
    '        write(f"/mnt/data/zz-many/{index:05}.txt", secret)',
    '    os.chdir("/mnt/data")',
    '    for _ in range(inputs["depth"]):',
    '        os.mkdir("zz-deep-" + "d" * 40)',
    '        os.chdir("zz-deep-" + "d" * 40)',
    '    write("leaf.txt", secret)',
    '    os.chdir("/")',
    '    os.chmod("/mnt/data", 0)',
    '    return "planted"',
  );

/** A's plant with the policy on: what pandas and numpy write (no os, no open). */
const PLANT_WITH_POLICY = python(
  "import numpy as np",
  "import pandas as pd",
  "",
  "",
  "def run(inputs):",
  '    frame = pd.DataFrame({"secret": [inputs["secret"]]})',
  "    try:",
  '        frame = pd.concat([frame, pd.read_csv("/mnt/data/a-secret.csv", header=None, names=["secret"])])',
  "    except FileNotFoundError:",
  "        pass",
  '    for index in range(inputs["many"]):',
  '        frame.to_csv(f"/mnt/data/zz-many-{index}.csv", index=False)',
  '    frame.to_csv("/tmp/zz-a-tmp.csv", index=False)',
  '    np.save("/mnt/data/zz-array.npy", np.arange(3))',
  '    return "planted"',
);

/** B's probe with the policy on: it cannot list, so it reads each path it is given with pandas. */
const PROBE_WITH_POLICY = python(
  "import pandas as pd",
  "",
  "",
  "def run(inputs):",
  "    found = {}",
  '    for name in inputs["paths"]:',
  "        try:",
  "            found[name] = pd.read_csv(name, header=None, dtype=str).to_csv(index=False)",
  "        except FileNotFoundError:",
  '            found[name] = "missing"',
  "        except Exception as error:",
  '            found[name] = "error: " + str(error)[:200]',
  "    return found",
);

/** What B sees in a conversation whose one file is `name` (`text`): that file in /mnt/data and /mnt/inbox, no other. */
function expectOnly(seen: Seen, files: Record<string, string>) {
  const expected = Object.entries(files).map(([name, text]) => ({ path: `/${name}`, kind: "-", text }));
  expect(seen["/mnt/data"].entries).toEqual(expected);
  expect(seen["/mnt/inbox"].entries).toEqual(expected);
  expect([seen["/mnt/data"].count, seen["/mnt/inbox"].count]).toEqual([expected.length, expected.length]);
  expect(seen["/mnt/data"].errors).toEqual([]);
  expect(seen["/mnt/inbox"].errors).toEqual([]);
  // /tmp may hold what the child's own start wrote (matplotlib's cache), never A's.
  expect(seen["/tmp"].entries.filter((entry) => entry.path.includes("zz-"))).toEqual([]);
}

// --- 1. Across callers ----------------------------------------------------------------------------------------

describe("one slot, two identities: /mnt/data and /mnt/inbox hold the caller's files only", () => {
  it("without the policy: nothing A planted (links, FIFOs, unreadable and deep folders, thousands of files) or uploaded reaches B, nor B's A", async () => {
    const { a, b } = withoutPolicy;
    const [secretA, secretB] = [`secret-a-${hex()}`, `secret-b-${hex()}`];
    const uploadA = `name,value\nalpha,${secretA}\n`;
    const uploadB = `name,value\nbeta,${secretB}\n`;
    const conversationA = (await a.createConversation()).id;
    await upload(a, conversationA, "a-secret.csv", uploadA);
    const conversationB = (await b.createConversation()).id;
    await upload(b, conversationB, "b-own.csv", uploadB);
    const [plant, listA] = [await register(a, PLANT), await register(a, LIST)];
    const listB = await register(b, LIST);
    const zygote = await register(a, ZYGOTE_PROBE);
    const zygotes = [(await execute(a, zygote)).output];

    const nothingOfA = (answer: unknown) => {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(secretA);
      expect(text).not.toContain("alpha");
      expect(text).not.toContain("zz-");
    };
    const nothingOfB = (answer: unknown) => {
      const text = JSON.stringify(answer);
      expect(text).not.toContain(secretB);
      expect(text).not.toContain("b-own");
    };
    const bSees = async () => {
      const inConversation = await callIn(b, conversationB, listB);
      expect(inConversation.ok, inConversation.error).toBe(true);
      expectOnly(inConversation.output as Seen, { "b-own.csv": uploadB });
      nothingOfA(inConversation);
      const outside = await execute(b, listB);
      expect(outside.ok, outside.error).toBe(true);
      expectOnly(outside.output as Seen, {});
      nothingOfA(outside);
    };

    // In A's conversation (the copy back takes what it takes), then outside any; a tree 20 folders deep each time
    // (past the walk's 16, within a host path: a deeper one has the slot replaced, see the next test).
    const planted = await callIn(a, conversationA, plant, { secret: secretA, many: 100, depth: 20 });
    expect(planted.ok, planted.error).toBe(true);
    await bSees();
    zygotes.push((await execute(a, zygote)).output);
    const plantedOutside = await execute(a, plant, { secret: secretA, many: 3000, depth: 20 });
    expect(plantedOutside.ok, plantedOutside.error).toBe(true);
    await bSees();
    zygotes.push((await execute(a, zygote)).output);
    // The same zygote throughout: the host emptied the slot's /mnt/data each time, rather than replace the slot.
    expect(new Set(zygotes).size).toBe(1);

    // A's next calls: nothing of B's, outside or in A's conversation, whose files are A's own.
    const outsideA = await execute(a, listA);
    expect(outsideA.ok, outsideA.error).toBe(true);
    nothingOfB(outsideA);
    expect((outsideA.output as Seen)["/mnt/data"].entries).toEqual([]);
    expect((outsideA.output as Seen)["/mnt/inbox"].entries).toEqual([]);
    const insideA = await callIn(a, conversationA, listA);
    expect(insideA.ok, insideA.error).toBe(true);
    nothingOfB(insideA);
    const seenA = (insideA.output as Seen)["/mnt/data"].entries;
    expect(seenA).toContainEqual({ path: "/a-secret.csv", kind: "-", text: uploadA });
    // Only regular files came back into A's conversation: no link, no FIFO, no folder past the walk's depth.
    expect(seenA.filter((entry) => entry.kind !== "-" && entry.kind !== "d")).toEqual([]);
    const filesA = (await listed(a, conversationA)).map((file) => file.path);
    expect(filesA).toContain("/zz-plain.txt");
    expect(filesA.some((name) => name.includes("zz-link") || name.includes("zz-fifo"))).toBe(false);
    expect(filesA.some((name) => name.endsWith("/leaf.txt"))).toBe(false);
    // B's conversation still has its one file.
    expect((await listed(b, conversationB)).map((file) => file.path)).toEqual(["/b-own.csv"]);
  }, 300_000);

  it("empties a tree deeper than a host path holds without replacing the slot's zygote", async () => {
    const { a } = withoutPolicy;
    const [plant, zygote] = [await register(a, PLANT), await register(a, ZYGOTE_PROBE)];
    const before = (await execute(a, zygote)).output;
    expect((await execute(a, zygote)).output).toBe(before);
    expect((await execute(a, plant, { secret: "deep", many: 0, depth: 120 })).ok).toBe(true);
    const after = (await execute(a, zygote)).output;
    // The zygote imports pandas and the rest anew when replaced: a call that can force that at will costs every
    // caller of the slot seconds of a core.
    expect(after).toBe(before);
  });

  it("with the policy: what A's pandas and numpy wrote, and A's upload, are missing for B, and B's file is B's", async () => {
    const { a, b } = withPolicy;
    const [secretA, secretB] = [`secret-a-${hex()}`, `secret-b-${hex()}`];
    const conversationA = (await a.createConversation()).id;
    await upload(a, conversationA, "a-secret.csv", `${secretA}\n`);
    const conversationB = (await b.createConversation()).id;
    await upload(b, conversationB, "b-own.csv", `${secretB}\n`);
    const plant = await register(a, PLANT_WITH_POLICY);
    const [probeA, probeB] = [await register(a, PROBE_WITH_POLICY), await register(b, PROBE_WITH_POLICY)];
    const aPaths = [
      "/mnt/data/a-secret.csv",
      "/mnt/inbox/a-secret.csv",
      "/mnt/data/zz-many-0.csv",
      "/mnt/data/zz-many-199.csv",
      "/mnt/data/zz-array.npy",
      "/tmp/zz-a-tmp.csv",
    ];
    const bPaths = ["/mnt/data/b-own.csv", "/mnt/inbox/b-own.csv"];
    const missing = (paths: string[]) => Object.fromEntries(paths.map((name) => [name, "missing"]));

    const bProbes = async () => {
      const inConversation = await callIn(b, conversationB, probeB, { paths: [...aPaths, ...bPaths] });
      expect(inConversation.ok, inConversation.error).toBe(true);
      expect(inConversation.output).toEqual({
        ...missing(aPaths),
        "/mnt/data/b-own.csv": `0\n${secretB}\n`,
        "/mnt/inbox/b-own.csv": `0\n${secretB}\n`,
      });
      const outside = await execute(b, probeB, { paths: [...aPaths, ...bPaths] });
      expect(outside.output).toEqual(missing([...aPaths, ...bPaths]));
    };

    expect((await callIn(a, conversationA, plant, { secret: secretA, many: 200 })).ok).toBe(true);
    await bProbes();
    expect((await execute(a, plant, { secret: secretA, many: 200 })).ok).toBe(true);
    await bProbes();
    const seenByA = await execute(a, probeA, { paths: bPaths });
    expect(seenByA.output).toEqual(missing(bPaths));
    const inA = await callIn(a, conversationA, probeA, { paths: bPaths });
    expect(inA.output).toEqual(missing(bPaths));
  }, 300_000);

  it("a call that times out while its workspace is still being copied into the inbox leaves none of it there for the next caller", async () => {
    // A's conversation holds 1,990 small files (under the walk's 2,000 entries): copying them into the slot's
    // inbox takes the host longer than this server's clock (400 ms), so A's next call there times out mid-copy.
    const { a, b } = shortClock;
    const secretA = `secret-a-${hex()}`;
    const conversationA = (await a.createConversation()).id;
    const fill = await register(
      a,
      python(
        "def run(inputs):",
        '    for index in range(inputs["count"]):',
        '        with open(f"/mnt/data/f{index:04}.txt", "w") as handle:',
        '            handle.write(inputs["secret"])',
        '    return inputs["count"]',
      ),
    );
    const filled = await callIn(a, conversationA, fill, { secret: secretA, count: 1990 });
    expect(filled.ok, filled.error).toBe(true);
    expect((await listed(a, conversationA)).length).toBe(1990);
    const idle = await register(a, python("def run(inputs):", '    return "idle"'));
    const inbox = python(
      "import os",
      "",
      "",
      "def run(inputs):",
      "    found = {}",
      '    for root in ["/mnt/inbox", "/mnt/data"]:',
      "        names = sorted(os.listdir(root))",
      "        sample = {}",
      "        for name in names[:3]:",
      "            try:",
      '                with open(os.path.join(root, name), "rb") as handle:',
      '                    sample[name] = handle.read(100).decode("utf-8", "replace")',
      "            except OSError as error:",
      "                sample[name] = str(error)",
      '        found[root] = {"count": len(names), "sample": sample}',
      "    return found",
    );
    const peekB = await register(b, inbox);
    const conversationB = (await b.createConversation()).id;

    const timedOut: { round: number; ok: boolean; error?: string; ms: number }[] = [];
    const leaks: unknown[] = [];
    // B next on the slot: outside a conversation in odd rounds, in B's conversation (whose child copies the inbox
    // into /mnt/data, and whose copy back keeps what it finds there) in the others. Rounds go on until A's call has
    // timed out before each (a machine that copies faster than the clock in a round proves nothing there), at most 8.
    const cutBefore = new Set<number>();
    for (let round = 1; round <= 8 && cutBefore.size < 2; round++) {
      const started = performance.now();
      const call = await callIn(a, conversationA, idle);
      timedOut.push({ round, ok: call.ok, error: call.error, ms: Math.round(performance.now() - started) });
      if (!call.ok) cutBefore.add(round % 2);
      const seen = round % 2 ? await execute(b, peekB) : await callIn(b, conversationB, peekB);
      if (JSON.stringify(seen).includes(secretA)) leaks.push({ round, seen });
    }
    const keptByB = (await listed(b, conversationB)).map((file) => file.path);
    console.log("short clock: A's calls", JSON.stringify(timedOut), "B kept", keptByB.length, "files");
    expect(cutBefore.size).toBe(2);
    expect(leaks).toEqual([]);
    expect(keptByB).toEqual([]);
  }, 300_000);
});

// --- 2. The copy back (policy off) ----------------------------------------------------------------------------

describe("the copy back into the conversation's files, the policy off", () => {
  const ATTEMPT =
    WITH_WRITE +
    python(
      "def attempt(results, name, action):",
      "    try:",
      "        action()",
      '        results[name] = "done"',
      "    except OSError as error:",
      '        results[name] = f"{type(error).__name__}: {error}"',
      "",
      "",
    );

  it("copies nothing of the host through a link: /etc/passwd, the workspaces' folder, /proc/self/environ, a host file", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "data.csv", "a,b\n1,2\n");
    const workspaces = path.join(withoutPolicy.dataDir, "workspaces");
    const links = await register(
      a,
      ATTEMPT +
        python(
          "def run(inputs):",
          "    results = {}",
          "    targets = {",
          '        "passwd": "/etc/passwd",',
          '        "workspaces": inputs["workspaces"],',
          '        "environ": "/proc/self/environ",',
          '        "canary.txt": inputs["canary"],',
          '        "up.txt": "../../../../../../../.." + inputs["canary"],',
          '        "root": "/",',
          '        "self-root": "/proc/self/root",',
          "    }",
          "    for name, target in targets.items():",
          '        attempt(results, name, lambda: os.symlink(target, "/mnt/data/" + name))',
          '    os.makedirs("/mnt/data/folder")',
          '    attempt(results, "folder/passwd", lambda: os.symlink("/etc/passwd", "/mnt/data/folder/passwd"))',
          '    attempt(results, "linked-folder", lambda: os.symlink(inputs["workspaces"], "/mnt/data/linked-folder"))',
          "    return results",
        ),
    );
    const result = await callIn(a, conversation, links, { workspaces, canary: hostCanaryFile });
    expect(result.ok, result.error).toBe(true);
    expect(Object.values(result.output as Record<string, string>).every((said) => said === "done")).toBe(true);
    expect((await listed(a, conversation)).map((file) => file.path)).toEqual(["/data.csv"]);
    await expectNoHostBytes(a, conversation);
    expect(fs.readFileSync(hostCanaryFile, "utf8")).toBe(HOST_CANARY);
  });

  it("passes over a file replaced by a link (to a host file, to another file): deleted from the conversation, no host bytes", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "data.csv", "a,b\n1,2\n");
    await upload(a, conversation, "keep.csv", "k\n1\n");
    const swap = await register(
      a,
      ATTEMPT +
        python(
          "def run(inputs):",
          '    write("/mnt/data/other.txt", "other")',
          '    os.remove("/mnt/data/data.csv")',
          '    os.symlink(inputs["canary"], "/mnt/data/data.csv")',
          '    os.remove("/mnt/data/keep.csv")',
          '    os.symlink("/mnt/data/other.txt", "/mnt/data/keep.csv")',
          '    return "swapped"',
        ),
    );
    const result = await callIn(a, conversation, swap, { canary: hostCanaryFile });
    expect(result.ok, result.error).toBe(true);
    const files = await listed(a, conversation);
    console.log(
      "a file replaced by a link:",
      JSON.stringify({ files: files.map((file) => file.path), deleted: result.deletedFiles }),
    );
    await expectNoHostBytes(a, conversation);
    // A link is no file: what the tool left as one is gone from the conversation, the regular file it wrote kept.
    expect(files.map((file) => file.path).sort()).toEqual(["/other.txt"]);
    expect(result.deletedFiles?.sort()).toEqual(["/data.csv", "/keep.csv"]);
  });

  it("refuses hard links into the inbox and the system, and every write into the read-only inbox", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "keep.csv", "k\n1\n");
    const tries = await register(
      a,
      ATTEMPT +
        python(
          "def run(inputs):",
          "    results = {}",
          '    attempt(results, "link inbox", lambda: os.link("/mnt/inbox/keep.csv", "/mnt/data/hard-inbox.csv"))',
          '    attempt(results, "link python", lambda: os.link("/usr/bin/python3", "/mnt/data/hard-python"))',
          '    attempt(results, "link harness", lambda: os.link("/sandbox/harness.py", "/mnt/data/hard-harness.py"))',
          '    attempt(results, "overwrite", lambda: write("/mnt/inbox/keep.csv", "changed"))',
          '    attempt(results, "create", lambda: write("/mnt/inbox/new.txt", "new"))',
          '    attempt(results, "remove", lambda: os.remove("/mnt/inbox/keep.csv"))',
          '    attempt(results, "rename", lambda: os.rename("/mnt/inbox/keep.csv", "/mnt/inbox/moved.csv"))',
          '    attempt(results, "move out", lambda: os.rename("/mnt/inbox/keep.csv", "/mnt/data/moved.csv"))',
          '    attempt(results, "mkdir", lambda: os.mkdir("/mnt/inbox/folder"))',
          '    attempt(results, "chmod", lambda: os.chmod("/mnt/inbox/keep.csv", 0o777))',
          '    attempt(results, "chmod root", lambda: os.chmod("/mnt/inbox", 0o777))',
          '    attempt(results, "utime", lambda: os.utime("/mnt/inbox/keep.csv", (0, 0)))',
          '    attempt(results, "symlink", lambda: os.symlink("/etc/passwd", "/mnt/inbox/passwd"))',
          "    return results",
        ),
    );
    const result = await callIn(a, conversation, tries);
    expect(result.ok, result.error).toBe(true);
    const said = result.output as Record<string, string>;
    for (const [name, outcome] of Object.entries(said)) expect(outcome, name).not.toBe("done");
    expect(said["link inbox"]).toMatch(/EXDEV|cross-device/i);
    const files = await listed(a, conversation);
    expect(files.map((file) => file.path)).toEqual(["/keep.csv"]);
    expect(await bytesOf(a, files[0])).toBe("k\n1\n");
    expect(files[0].source).toBe("upload");
  });

  it("keeps a file with a hostile name as a plain name: no control characters, no `.` or `..` segment, nothing outside", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    const names = [
      "evil\nname.txt",
      "..\n",
      "...",
      "..\\..\\escape.txt",
      " .. ",
      "..txt",
      "tab\there.txt",
      "bell\u0007.txt",
      "rtl\u202Etxt.exe",
      "zero\u200Bwidth.txt",
    ];
    const hostile = await register(
      a,
      ATTEMPT +
        python(
          "def run(inputs):",
          "    results = {}",
          '    for name in inputs["names"]:',
          '        attempt(results, name, lambda: write("/mnt/data/" + name, "hostile"))',
          '    os.makedirs("/mnt/data/x/..a/b..")',
          '    write("/mnt/data/x/..a/b../..c", "hostile")',
          "    return results",
        ),
    );
    const workspaces = path.join(withoutPolicy.dataDir, "workspaces");
    const before = fs.existsSync(workspaces) ? fs.readdirSync(workspaces).sort() : [];
    const result = await callIn(a, conversation, hostile, { names });
    expect(result.ok, result.error).toBe(true);
    const files = await listed(a, conversation);
    console.log("hostile names stored:", JSON.stringify(files.map((file) => file.path)));
    for (const file of files) {
      const segments = file.path.slice(1).split("/");
      expect(
        segments.some((segment) => segment === "" || segment === "." || segment === ".."),
        file.path,
      ).toBe(false);
      expect(path.posix.normalize(file.path)).toBe(file.path);
      expect(await bytesOf(a, file)).toBe("hostile");
    }
    // Nothing landed beside the conversation's workspace (made by this call).
    expect(fs.readdirSync(path.join(withoutPolicy.dataDir, "workspaces")).sort()).toEqual(
      [...before, conversation].sort(),
    );
    // What is stored has plain names only; a file the tool named with controls or invisible characters is not kept,
    // and the result says so (uploads have theirs made plain: a tool is told, and can name its file again).
    const unsafe = files.filter((file) => /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u2028-\u202E]/u.test(file.path));
    expect(unsafe.map((file) => file.path)).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
    expect(result.refusedFiles).toEqual(
      expect.arrayContaining([expect.stringContaining("has control or invisible characters in its name")]),
    );
    expect(files.length + (result.refusedFiles?.length ?? 0)).toBe(names.length + 1);
  });

  it("answers a call that wrote 2,500 empty files, past the walk's 2,000, serves the next, and keeps the upload the walk did not reach", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    // "report.csv" sorts after "many/": past the walk's 2,000 entries.
    const report = await upload(a, conversation, "report.csv", "x\n1\n");
    const many = await register(
      a,
      python(
        "import os",
        "",
        "",
        "def run(inputs):",
        '    os.mkdir("/mnt/data/many")',
        '    for index in range(inputs["count"]):',
        '        open(f"/mnt/data/many/{index:05}", "w").close()',
        '    return len(os.listdir("/mnt/data/many"))',
      ),
    );
    const result = await callIn(a, conversation, many, { count: 2500 });
    expect(result.ok, result.error).toBe(true);
    expect(result.output).toBe(2500);
    const files = await listed(a, conversation);
    const kept = files.filter((file) => file.path.startsWith("/many/")).length;
    console.log(
      `2,500 files: ${kept} kept, deleted ${JSON.stringify(result.deletedFiles)}, report.csv listed:`,
      files.some((file) => file.path === "/report.csv"),
    );
    expect(kept).toBeLessThanOrEqual(2000);
    // The slot serves the next call.
    const next = await execute(a, await register(a, python("def run(inputs):", '    return "next"')));
    expect(next).toMatchObject({ ok: true, output: "next" });
    // The tool did not touch report.csv: it is still the conversation's.
    expect(result.deletedFiles ?? []).not.toContain("/report.csv");
    expect(files.find((file) => file.path === "/report.csv")?.id).toBe(report.id);
  }, 180_000);

  it("a 300 MB write fills the call's tmpfs, not the host's disk; the next call is served", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "small.csv", "s\n1\n");
    const fillCode = (catching: boolean) =>
      python(
        "def run(inputs):",
        '    chunk = b"\\x00" * (1 << 20)',
        "    written, errors = 0, []",
        "    for index in range(10):",
        ...(catching ? ["        try:"] : ["        if True:"]),
        '            with open(f"/mnt/data/fill-{index}.bin", "wb") as handle:',
        "                for _ in range(60):",
        '                    if written >= inputs["mb"] << 20:',
        "                        break",
        "                    handle.write(chunk)",
        "                    written += len(chunk)",
        ...(catching
          ? ["        except OSError as error:", "            errors.append(str(error))", "            break"]
          : []),
        '    return {"written": written >> 20, "errors": errors}',
      );
    const folder = withoutPolicy.dataDir;
    const measured = async (call: () => Promise<ToolResult>) => {
      const before = freeBytes(folder);
      let least = before;
      const sampler = setInterval(() => (least = Math.min(least, freeBytes(folder))), 20);
      try {
        const result = await call();
        return { result, before, least, after: freeBytes(folder) };
      } finally {
        clearInterval(sampler);
      }
    };
    const MB = 1024 * 1024;

    const caught = await measured(async () => callIn(a, conversation, await register(a, fillCode(true)), { mb: 300 }));
    const uncaught = await measured(async () =>
      callIn(a, conversation, await register(a, fillCode(false)), { mb: 300 }),
    );
    const next = await execute(a, await register(a, python("def run(inputs):", '    return "next"')));
    const files = await listed(a, conversation);
    console.log(
      "300 MB:",
      JSON.stringify({
        caught: { ...caught.result, peakMB: Math.round((caught.before - caught.least) / MB) },
        uncaught: {
          ok: uncaught.result.ok,
          error: uncaught.result.error,
          peakMB: (uncaught.before - uncaught.least) / MB,
        },
        kept: files.map((file) => [file.path, file.size]),
      }),
    );
    // The tool that caught the error answered, having written what the tmpfs held (at most the conversation's 250 MB).
    expect(caught.result.ok, caught.result.error).toBe(true);
    const wrote = caught.result.output as { written: number; errors: string[] };
    expect(wrote.written).toBeLessThan(300);
    expect(wrote.errors.join(" ")).toMatch(/No space left|File too large/);
    // The one that did not failed.
    expect(uncaught.result.ok).toBe(false);
    expect(next).toMatchObject({ ok: true, output: "next" });
    // Nothing over the limit of one file is kept, and the host's disk has back what the copy took.
    expect(files.every((file) => file.size <= 25 * MB)).toBe(true);
    expect(caught.result.refusedFiles?.length).toBeGreaterThan(0);
    expect(Math.abs(caught.after - caught.before)).toBeLessThan(64 * MB);
    expect(Math.abs(uncaught.after - uncaught.before)).toBeLessThan(64 * MB);
  }, 180_000);
});

// --- 3. What a call's files mean to the conversation ----------------------------------------------------------

describe("a call's files are the conversation's", () => {
  const SALES = "region,amount\nnorth,10\nsouth,32\neast,7\n";

  const REPORT = python(
    "import pandas as pd",
    "",
    "",
    "def run(inputs):",
    '    df = pd.read_csv("/mnt/data/sales.csv")',
    '    df.sort_values("amount").to_csv("/mnt/data/out/report.csv", index=False)',
    '    return int(df["amount"].sum())',
  );
  const SORTED = "region,amount\neast,7\nnorth,10\nsouth,32\n";

  it("with the policy: pandas reads an upload from /mnt/data, and to_csv into an existing /mnt/data/out/ makes /out/report.csv", async () => {
    const { a } = withPolicy;
    const report = await register(a, REPORT);
    // /out exists already: write_file made it.
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "sales.csv", SALES);
    expect((await callBuiltin(a, conversation, "write_file", { path: "/out/readme.txt", content: "reports" })).ok).toBe(
      true,
    );
    const result = await callIn(a, conversation, report);
    expect(result).toMatchObject({ ok: true, output: 49 });
    expect(result.files?.map((file) => file.path)).toEqual(["/out/report.csv"]);
    const written = (await listed(a, conversation)).find((file) => file.path === "/out/report.csv")!;
    expect(written).toMatchObject({ name: "report.csv", source: "tool" });
    expect(await bytesOf(a, written)).toBe(SORTED);
  });

  it("with the policy: a folder made with pathlib, then to_csv into it, makes /out/report.csv", async () => {
    const { a } = withPolicy;
    const report = await register(
      a,
      python(
        "import pandas as pd",
        "from pathlib import Path",
        "",
        "",
        "def run(inputs):",
        '    Path("/mnt/data/out").mkdir(exist_ok=True)',
        '    df = pd.read_csv("/mnt/data/sales.csv")',
        '    df.sort_values("amount").to_csv("/mnt/data/out/report.csv", index=False)',
        '    return int(df["amount"].sum())',
      ),
    );
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "sales.csv", SALES);
    const result = await callIn(a, conversation, report);
    console.log("to_csv into a folder that does not exist:", JSON.stringify(result));
    expect(result, result.error).toMatchObject({ ok: true, output: 49 });
    expect((await listed(a, conversation)).map((file) => file.path).sort()).toEqual(["/out/report.csv", "/sales.csv"]);
  });

  it("without the policy: os.remove of an upload deletes it; a rewrite with the same bytes and a new mtime is stored again", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    const doomed = await upload(a, conversation, "doomed.csv", SALES);
    const same = await upload(a, conversation, "same.csv", SALES);
    const untouched = await upload(a, conversation, "untouched.csv", SALES);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const tool = await register(
      a,
      python(
        "import os",
        "",
        "",
        "def run(inputs):",
        '    os.remove("/mnt/data/doomed.csv")',
        '    with open("/mnt/data/same.csv", "rb") as handle:',
        "        data = handle.read()",
        '    with open("/mnt/data/same.csv", "wb") as handle:',
        "        handle.write(data)",
        '    return sorted(os.listdir("/mnt/data"))',
      ),
    );
    const result = await callIn(a, conversation, tool);
    expect(result).toMatchObject({ ok: true, output: ["same.csv", "untouched.csv"] });
    expect(result.deletedFiles).toEqual(["/doomed.csv"]);
    const files = await listed(a, conversation);
    expect(files.map((file) => file.path).sort()).toEqual(["/same.csv", "/untouched.csv"]);
    expect(files.some((file) => file.id === doomed.id)).toBe(false);
    const rewritten = files.find((file) => file.path === "/same.csv")!;
    console.log(
      "same bytes, new mtime:",
      JSON.stringify({ before: same, after: rewritten, reported: result.files ?? null }),
    );
    // Stored again: a new version (updatedAt later), now the tool's, with the same bytes; the file left alone is not.
    expect(Date.parse(rewritten.updatedAt)).toBeGreaterThan(Date.parse(same.updatedAt));
    expect(rewritten).toMatchObject({ id: same.id, source: "tool", size: SALES.length });
    expect(result.files?.map((file) => file.path)).toEqual(["/same.csv"]);
    expect(await bytesOf(a, rewritten)).toBe(SALES);
    expect(files.find((file) => file.path === "/untouched.csv")).toEqual(untouched);
  });

  it("without the policy: a file replaced by a folder of its name, and a folder by a file, are kept as the tool left them", async () => {
    const { a } = withoutPolicy;
    const conversation = (await a.createConversation()).id;
    await upload(a, conversation, "data.csv", SALES);
    const boxed = await register(
      a,
      python(
        "import os",
        "",
        "",
        "def run(inputs):",
        '    os.makedirs("/mnt/data/box")',
        '    with open("/mnt/data/box/inner.txt", "w") as handle:',
        '        handle.write("inner")',
        '    return "boxed"',
      ),
    );
    expect((await callIn(a, conversation, boxed)).ok).toBe(true);
    const swap = await register(
      a,
      python(
        "import os",
        "import shutil",
        "",
        "",
        "def run(inputs):",
        '    os.remove("/mnt/data/data.csv")',
        '    os.makedirs("/mnt/data/data.csv")',
        '    with open("/mnt/data/data.csv/inner.txt", "w") as handle:',
        '        handle.write("now a folder")',
        '    shutil.rmtree("/mnt/data/box")',
        '    with open("/mnt/data/box", "w") as handle:',
        '        handle.write("now a file")',
        '    return "swapped"',
      ),
    );
    const result = await callIn(a, conversation, swap);
    const files = await listed(a, conversation);
    console.log("file ↔ folder:", JSON.stringify({ result, files: files.map((file) => file.path) }));
    expect(result, result.error).toMatchObject({ ok: true, output: "swapped" });
    expect(files.map((file) => file.path).sort()).toEqual(["/box", "/data.csv/inner.txt"]);
  });

  it("a call that times out keeps nothing it wrote, deleted or changed", async () => {
    const { a } = shortClock;
    const conversation = (await a.createConversation()).id;
    const kept = await upload(a, conversation, "kept.csv", SALES);
    const other = await upload(a, conversation, "other.csv", SALES);
    const spin = await register(
      a,
      python(
        "import os",
        "",
        "",
        "def run(inputs):",
        '    with open("/mnt/data/new.txt", "w") as handle:',
        '        handle.write("new")',
        '    with open("/mnt/data/kept.csv", "w") as handle:',
        '        handle.write("changed")',
        '    os.remove("/mnt/data/other.csv")',
        "    while True:",
        "        pass",
      ),
    );
    const result = await callIn(a, conversation, spin);
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/time|ms/i);
    expect(await listed(a, conversation)).toEqual([kept, other]);
    expect(await bytesOf(a, kept)).toBe(SALES);
    // And the slot serves the next call, with the files as they were.
    const look = await register(
      a,
      python("import os", "", "", "def run(inputs):", '    return sorted(os.listdir("/mnt/data"))'),
    );
    expect(await callIn(a, conversation, look)).toMatchObject({ ok: true, output: ["kept.csv", "other.csv"] });
  });
});
