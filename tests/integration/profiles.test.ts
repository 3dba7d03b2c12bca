import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Api, ofType } from "../support/api";
import { scriptedApp, tempDataDir, type AppServer } from "../support/app-server";
import { ModelServer } from "../support/model-server";
import { SPEC_ORGANISM } from "../support/organism";
import { readSse } from "../support/sse";

const CONFIG = `# Two profiles: one may only calculate (once a minute), the other may fetch from example.com and make tools.
profiles:
  - name: calculator
    tools: [calculate]
    tool_config:
      calculate:
        rate_limit: { calls: 1, per_seconds: 60 }
  - name: web
    tools: [fetch_url, register_tool]
    tool_config:
      fetch_url:
        allowed_domains: [example.com]
  - name: careful
    tools: [calculate]
    think: false
    approval: [calculate]
default_profile: web
`;

const model = new ModelServer();
let app: AppServer;
let api: Api;
const configFile = (text: string) => {
  const file = path.join(tempDataDir(), "toolsmith.config.yaml");
  fs.writeFileSync(file, text);
  return file;
};

beforeAll(async () => {
  await model.start();
  app = scriptedApp(model.url, { TOOLSMITH_CONFIG: configFile(CONFIG) });
  await app.start();
  api = new Api(app.url);
});
afterAll(async () => {
  await app?.stop();
  await model.stop();
});

const post = (path: string, body: unknown, method = "POST") =>
  api.fetch(path, { method, headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("agent profiles", () => {
  it("lists the profiles of the file, and a conversation chooses one by name", async () => {
    const listed = await (await api.fetch("/api/profiles")).json();
    expect(listed.defaultProfile).toBe("web");
    expect(listed.profiles.map((profile: { name: string; tools: string[] }) => [profile.name, profile.tools])).toEqual([
      ["calculator", ["think", "calculate"]],
      ["web", ["think", "fetch_url", "register_tool"]],
      ["careful", ["calculate"]],
    ]);
    const unknown = await post("/api/conversations", { profile: "root" });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).error.message).toBe(
      'There is no profile named "root"; the profiles are: calculator, web, careful.',
    );
    const created = await post("/api/conversations", { profile: "calculator" });
    expect(await created.json()).toMatchObject({ profile: "calculator" });
  });

  it("offers the model only its profile's tools, shows the profile in the trace, and rate-limits a tool as the profile says", async () => {
    const { id } = await (await post("/api/conversations", { profile: "calculator" })).json();
    const prompt = "Two sums, quickly.";
    model.script(prompt, [
      {
        toolCalls: [
          { name: "calculate", args: { expression: "1 + 1" } },
          { name: "calculate", args: { expression: "2 + 2" } },
        ],
      },
      { text: "Done." },
    ]);
    const events = await api.run(id, prompt);
    // search_tools is offered under every profile, as the library is.
    expect(model.toolsOffered(prompt)).toEqual(["calculate", "search_tools", "think"]);
    expect(events[0].data).toMatchObject({ type: "run_started", profile: "calculator" });
    const results = ofType(events, "tool_result");
    expect(results.filter((result) => result.ok)).toHaveLength(1);
    expect(results.find((result) => !result.ok)).toMatchObject({
      error: expect.stringMatching(/calculate is rate-limited in the "calculator" profile; try again in \d+ s/),
    });
  });

  it("runs the default profile, whose fetch_url reaches only the allowed domains", async () => {
    const { id } = await api.createConversation();
    const prompt = "Fetch something elsewhere.";
    model.script(prompt, [
      {
        toolCalls: [
          { name: "fetch_url", args: { url: "https://evil.test/steal" } },
          { name: "calculate", args: { expression: "1" } },
        ],
      },
      { text: "Refused." },
    ]);
    const events = await api.run(id, prompt);
    expect(model.toolsOffered(prompt)).toEqual(["fetch_url", "register_tool", "search_tools", "think"]);
    const results = ofType(events, "tool_result");
    const [fetched, calculated] = ["fetch_url", "calculate"].map((name) =>
      results.find((result) => result.name === name),
    );
    expect(fetched).toMatchObject({
      name: "fetch_url",
      ok: false,
      error: expect.stringContaining("evil.test is not among the domains this profile allows"),
    });
    // a tool the profile does not offer is unknown to the run
    expect(calculated).toMatchObject({
      name: "calculate",
      ok: false,
      error: expect.stringContaining('There is no tool named "calculate"'),
    });
  });

  it("switches a conversation's profile, and refuses a name no profile has", async () => {
    const { id } = await api.createConversation();
    expect((await post(`/api/conversations/${id}`, { profile: "nobody" }, "PATCH")).status).toBe(400);
    expect(await (await post(`/api/conversations/${id}`, { profile: "calculator" }, "PATCH")).json()).toMatchObject({
      profile: "calculator",
    });
  });

  it("keeps an audit log of every call with the profile's decision, filterable, exportable, and private", async () => {
    const { entries } = await (await api.fetch("/api/audit?limit=200")).json();
    const decisions = new Set(
      entries.map(
        (entry: { tool: string; decision: string; outcome: string | null }) =>
          `${entry.tool}:${entry.decision}:${entry.outcome}`,
      ),
    );
    expect([...decisions]).toEqual(
      expect.arrayContaining([
        "calculate:allowed:succeeded",
        "calculate:rate_limited:null",
        "calculate:refused:null",
        // the fetch of evil.test, outside the profile's allowed_domains: refused, and so it did not run
        "fetch_url:refused:null",
      ]),
    );
    const limited = entries.find((entry: { decision: string }) => entry.decision === "rate_limited");
    expect(limited).toMatchObject({
      profile: "calculator",
      reason: expect.stringContaining("rate-limited"),
      inputHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      inputSize: 22,
      runId: expect.any(String),
      conversationId: expect.any(String),
    });
    expect(JSON.stringify(entries)).not.toContain("2 + 2");

    const onlyFetch = await (await api.fetch("/api/audit?tool=fetch_url")).json();
    expect(onlyFetch.entries.map((entry: { tool: string }) => entry.tool)).toEqual(["fetch_url"]);
    const paged = await (await api.fetch("/api/audit?limit=1")).json();
    expect(paged.entries).toHaveLength(1);
    const next = await (await api.fetch(`/api/audit?limit=1&cursor=${paged.nextCursor}`)).json();
    expect(next.entries[0].id).not.toBe(paged.entries[0].id);

    const csv = await api.fetch("/api/audit/export?format=csv");
    expect(csv.headers.get("content-type")).toMatch(/text\/csv/);
    const lines = (await csv.text()).trim().split("\n");
    expect(lines[0]).toBe(
      "time,id,conversationId,runId,tool,profile,decision,reason,inputHash,inputSize,outcome,durationMs",
    );
    expect(lines).toHaveLength(entries.length + 1);
    const jsonl = (await (await api.fetch("/api/audit/export?format=jsonl&tool=calculate")).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(jsonl.every((entry) => entry.tool === "calculate")).toBe(true);

    const stranger = new Api(app.url);
    expect((await (await stranger.fetch("/api/audit")).json()).entries).toEqual([]);
  });

  it("holds a call the profile marks for approval until its owner answers: approved runs, denied is an observation, Stop ends the wait", async () => {
    const answer = (conversationId: string, approvalId: string, approved: unknown, client = api) =>
      client.answerApproval(conversationId, approvalId, approved);
    const waitForApproval = async (conversationId: string, prompt: string) => {
      const seen = await readSse(
        await api.send(conversationId, prompt),
        (message) => message.data.type === "approval_requested",
      );
      return seen.at(-1)!;
    };
    const rest = async (conversationId: string, after: number) => readSse(await api.events(conversationId, after));

    for (const approved of [true, false]) {
      const { id } = await (await post("/api/conversations", { profile: "careful" })).json();
      const prompt = `Calculate carefully (${approved}).`;
      model.script(prompt, [
        { toolCalls: [{ name: "calculate", args: { expression: "6 * 7" } }] },
        { text: "Answered." },
      ]);
      const requested = await waitForApproval(id, prompt);
      // The profile says think: false.
      expect(model.toolsOffered(prompt)).toEqual(["calculate", "search_tools"]);
      expect(requested.data).toMatchObject({
        tool: "calculate",
        input: { expression: "6 * 7" },
        approvalId: expect.any(String),
      });
      const approvalId = requested.data.approvalId as string;
      expect((await answer(id, approvalId, approved, new Api(app.url))).status).toBe(404);
      expect((await answer(id, approvalId, "yes")).status).toBe(400);
      expect(await (await answer(id, approvalId, approved)).json()).toEqual({ approvalId, approved });
      // Sent again (a lost response): taken as it was; the other answer is refused.
      expect((await answer(id, approvalId, approved)).status).toBe(200);
      expect((await answer(id, approvalId, !approved)).status).toBe(409);
      const after = await rest(id, requested.id);
      expect(after[0].data).toMatchObject({ type: "approval_resolved", approvalId, approved });
      const [result] = ofType(after, "tool_result");
      expect(result).toMatchObject(
        approved
          ? { ok: true, output: 42 }
          : { ok: false, error: expect.stringContaining("A person denied this calculate call") },
      );
      expect(after.at(-1)!.data).toMatchObject({ type: "run_finished", status: "completed" });
    }

    const { id } = await (await post("/api/conversations", { profile: "careful" })).json();
    model.script("Calculate, then stop.", [
      { toolCalls: [{ name: "calculate", args: { expression: "1" } }] },
      { text: "Never." },
    ]);
    const requested = await waitForApproval(id, "Calculate, then stop.");
    expect((await api.fetch(`/api/conversations/${id}/cancel`, { method: "POST" })).status).toBe(202);
    const after = await rest(id, requested.id);
    expect(after.at(-1)!.data).toMatchObject({ type: "run_finished", status: "cancelled" });

    const { entries } = await (await api.fetch("/api/audit?tool=calculate&limit=200")).json();
    expect(entries.map((entry: { decision: string }) => entry.decision)).toEqual(
      expect.arrayContaining(["approved", "denied"]),
    );
  });

  it("does not start with a file it cannot use, and says which line is wrong and what is wrong on it", async () => {
    const broken = scriptedApp(model.url, {
      TOOLSMITH_CONFIG: configFile(CONFIG.replace("tools: [calculate]", "tools: [calculate, shell]")),
    });
    await expect(broken.start()).rejects.toThrow(
      /toolsmith\.config\.yaml, line 4 \(profiles\.0\.tools\.1\): "shell" is not a tool; the tools are think, register_tool, search_tools, calculate,/,
    );
    await broken.stop();
  });
});

describe("an organism.yaml (the native tools spec's config file)", () => {
  // The spec's Tool Permissions example, with xml-pipeline's own keys on a third listener.
  const ORGANISM = `organism:
  name: research-desk
${SPEC_ORGANISM}
  - name: archivist
    agent: true
    prompt: You keep notes.
    tools: [key_value_store]
    confirm_actions: true
`;
  let organismApp: AppServer;
  let organismApi: Api;

  beforeAll(async () => {
    const file = path.join(tempDataDir(), "organism.yaml");
    fs.writeFileSync(file, ORGANISM);
    organismApp = scriptedApp(model.url, { TOOLSMITH_CONFIG: file });
    await organismApp.start();
    organismApi = new Api(organismApp.url);
  });
  afterAll(() => organismApp?.stop());

  it("offers the listeners as profiles, the first the default, and says at start-up what it does not apply", async () => {
    const listed = await (await organismApi.fetch("/api/profiles")).json();
    expect(listed.defaultProfile).toBe("researcher");
    expect(listed.profiles).toEqual([
      expect.objectContaining({
        name: "researcher",
        tools: ["think", "web_search", "fetch_url", "read_file", "calculate"],
        tool_config: {
          fetch_url: { allowed_domains: ["api.example.com", "*.github.com"] },
          read_file: { allowed_paths: ["/data/research/**"] },
        },
      }),
      expect.objectContaining({ name: "writer", tools: ["think", "write_file", "send_email"] }),
      expect.objectContaining({
        name: "archivist",
        tools: ["think", "key_value_get", "key_value_set", "key_value_delete"],
        approval: ["key_value_get", "key_value_set", "key_value_delete"],
      }),
    ]);
    expect(organismApp.output).toMatch(/organism\.yaml, line 1: organism not applied: xml-pipeline's runtime/);
    expect(organismApp.output).toMatch(/organism\.yaml, line 27 \(listeners\.2\): agent, prompt not applied/);
  });

  it("runs a conversation under the default listener with its tools and its fetch_url domains", async () => {
    const { id } = await organismApi.createConversation();
    const prompt = "Fetch from a site the researcher may not reach.";
    model.script(prompt, [
      { toolCalls: [{ name: "fetch_url", args: { url: "https://evil.test/" } }] },
      { text: "Refused." },
    ]);
    const events = await organismApi.run(id, prompt);
    expect(model.toolsOffered(prompt)).toEqual([
      "calculate",
      "fetch_url",
      "read_file",
      "search_tools",
      "think",
      "web_search",
    ]);
    expect(events[0].data).toMatchObject({ type: "run_started", profile: "researcher" });
    expect(ofType(events, "tool_result")[0]).toMatchObject({
      ok: false,
      error: expect.stringContaining("evil.test is not among the domains this profile allows"),
    });
  });
});
