import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { ConfigFileError, findProfile, parseProfiles } from "@/lib/settings/profiles";
import { CODE_NETWORK, domainGuard, domainRefusal, toolRules } from "@/lib/sandbox/fetch-guard";
import { BUILTIN_TOOL_NAMES } from "@/lib/tools/names";
import { SPEC_ORGANISM } from "../support/organism";

const VALID = `profiles:
  - name: researcher
    tools: [fetch_url, calculate]
    tool_config:
      fetch_url:
        allowed_domains: [example.com]
        rate_limit: { calls: 10, per_seconds: 60 }
  - name: coder
    tools: [register_tool, run_code]
default_profile: coder
`;

describe("toolsmith.config.example.yaml", () => {
  it("is a valid profiles file", () => {
    const parsed = parseProfiles(
      fs.readFileSync("toolsmith.config.example.yaml", "utf8"),
      "toolsmith.config.example.yaml",
      BUILTIN_TOOL_NAMES,
    );
    expect(parsed.profiles.map((profile) => [profile.name, profile.tools.includes("think")])).toEqual([
      ["default", true],
      ["analyst", true],
      ["researcher", true],
      ["archivist", false],
    ]);
    expect(parsed.profiles[1].network).toEqual({ allowed_domains: ["api.openweathermap.org"] });
    expect(parsed.profiles[0].network).toEqual({});
  });
});

describe("a profile's network", () => {
  const withNetwork = (network: string) =>
    `profiles:\n  - name: coder\n    tools: [run_python]\n    network:\n${network}\ndefault_profile: coder\n`;

  it("reads allowed and blocked domains, in a profiles file and an organism.yaml listener", () => {
    const file = parseProfiles(
      withNetwork("      allowed_domains: [api.example.com, 10.0.0.5]\n      blocked_domains: [ads.example.com]"),
      "toolsmith.config.yaml",
      BUILTIN_TOOL_NAMES,
    );
    expect(file.profiles[0].network).toEqual({
      allowed_domains: ["api.example.com", "10.0.0.5"],
      blocked_domains: ["ads.example.com"],
    });
    const organism = parseProfiles(
      "listeners:\n  - name: agent\n    tools: [run_python]\n    network:\n      blocked_domains: [evil.test]\n",
      "organism.yaml",
      BUILTIN_TOOL_NAMES,
    );
    expect(organism.profiles[0].network).toEqual({ blocked_domains: ["evil.test"] });
  });

  it("refuses an unknown key, naming its line", () => {
    expect(() =>
      parseProfiles(withNetwork("      allowed_hosts: [api.example.com]"), "toolsmith.config.yaml", BUILTIN_TOOL_NAMES),
    ).toThrow(/^toolsmith\.config\.yaml, line 5 .*allowed_hosts/);
  });

  it("refuses a host outside the rule with a sentence naming the host, and lets a listed IP literal through", () => {
    const guard = domainGuard({ allowed_domains: ["api.example.com", "127.0.0.1"] }, CODE_NETWORK);
    expect(guard.allowHost!("evil.test")).toBe(
      "evil.test is not among the domains this profile allows the code of tools to reach (api.example.com, 127.0.0.1).",
    );
    expect(guard.allowHost!("v2.api.example.com")).toBeUndefined();
    expect(guard.isAllowed!("127.0.0.1", "127.0.0.1")).toBe(true);
    expect(guard.isAllowed!("127.0.0.2", "127.0.0.2")).toBe(false);
    expect(guard.isAllowed!("10.0.0.1", "10.0.0.1")).toBe(false);
    const blocked = domainGuard({ blocked_domains: ["example.com"] }, CODE_NETWORK);
    expect(blocked.allowHost!("www.example.com")).toBe(
      "www.example.com is blocked by this profile's network settings.",
    );
  });
});

describe("the profiles file", () => {
  it("reads profiles, their tools and their settings", () => {
    const file = parseProfiles(VALID, "toolsmith.config.yaml", BUILTIN_TOOL_NAMES);
    expect(file.default_profile).toBe("coder");
    expect(file.profiles[0]).toMatchObject({
      name: "researcher",
      tools: ["think", "fetch_url", "calculate"],
      tool_config: { fetch_url: { allowed_domains: ["example.com"], rate_limit: { calls: 10, per_seconds: 60 } } },
      approval: [],
    });
  });

  it("gives every profile think, unless it says think: false", () => {
    const file = parseProfiles(
      `profiles:
  - name: plain
    tools: [calculate]
  - name: listed
    tools: [calculate, think]
  - name: without
    tools: [calculate]
    think: false
  - name: bare
    tools: []
default_profile: plain
`,
      "toolsmith.config.yaml",
      BUILTIN_TOOL_NAMES,
    );
    expect(file.profiles.map((profile) => [profile.name, profile.tools])).toEqual([
      ["plain", ["think", "calculate"]],
      ["listed", ["calculate", "think"]],
      ["without", ["calculate"]],
      ["bare", ["think"]],
    ]);
  });

  it("gives think to the built-in default profile, used without a file", () => {
    vi.stubEnv("TOOLSMITH_CONFIG", "/nonexistent/toolsmith.config.yaml");
    expect(findProfile(null)).toMatchObject({ name: "default", tools: expect.arrayContaining(["think"]) });
  });

  it("names a tool that does not exist, its line, and the tools there are", () => {
    const tools = BUILTIN_TOOL_NAMES.join(", ");
    const problem = (text: string) => {
      try {
        parseProfiles(text, "toolsmith.config.yaml", BUILTIN_TOOL_NAMES);
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(problem(VALID.replace("tools: [fetch_url, calculate]", "tools: [fetch_url, teleport]"))).toBe(
      `toolsmith.config.yaml, line 3 (profiles.0.tools.1): "teleport" is not a tool; the tools are ${tools}`,
    );
    expect(
      problem(VALID.replace("tools: [register_tool, run_code]", "tools:\n      - run_code\n      - teleport")),
    ).toMatch(
      /^toolsmith\.config\.yaml, line 11 \(profiles\.1\.tools\.1\): "teleport" is not a tool; the tools are think, register_tool, /,
    );
    expect(problem(VALID.replace("      fetch_url:\n", "      teleport:\n"))).toMatch(
      /^toolsmith\.config\.yaml, line 5 \(profiles\.0\.tool_config\.teleport\): "teleport" is not a tool; the tools are /,
    );
    const approval = "    tools: [register_tool, run_code]\n    approval: [teleport]\n";
    expect(problem(VALID.replace("    tools: [register_tool, run_code]\n", approval))).toMatch(
      /line 10 \(profiles\.1\.approval\.0\): "teleport" is not a tool/,
    );
  });

  it.each([
    [VALID.replace("tools: [fetch_url, calculate]", "tools: [fetch_url, telnet]"), /line 3 \(profiles\.0\.tools\.1\)/],
    [
      VALID.replace("tools: [register_tool, run_code]", "tools: [register_tool, think]\n    think: false"),
      /line 10 \(profiles\.1\.think\): think: false leaves out the think tool that tools lists/,
    ],
    [
      VALID.replace("tools: [fetch_url, calculate]", "tools: fetch_url"),
      /line 3 \(profiles\.0\.tools\): .* \(got "fetch_url"\)$/,
    ],
    [
      VALID.replace("allowed_domains:", "allowed_domainz:"),
      /line 6 \(profiles\.0\.tool_config\.fetch_url\): Unrecognized key: "allowed_domainz"/,
    ],
    [
      VALID.replace("default_profile: coder", "default_profile: nobody"),
      /line 10 \(default_profile\): no profile is named "nobody"/,
    ],
    [
      VALID.replace("name: coder", "name: researcher"),
      /line 8 \(profiles\.1\.name\): the profile name "researcher" is used twice/,
    ],
    [VALID.replace("calls: 10", "calls: 0"), /line 7 .*rate_limit\.calls.* \(got 0\)$/],
    ["profiles: [\n  - name: a\n    tools: [calculate\n", /line \d+: /],
  ])("names the line and the problem of a file it cannot use (%#)", (text, message) => {
    expect(() => parseProfiles(text, "toolsmith.config.yaml", BUILTIN_TOOL_NAMES)).toThrow(ConfigFileError);
    expect(() => parseProfiles(text, "toolsmith.config.yaml", BUILTIN_TOOL_NAMES)).toThrow(message);
  });
});

describe("fetch_url's domain rules", () => {
  it.each([
    ["example.com", { allowed_domains: ["example.com"] }, undefined],
    ["api.example.com", { allowed_domains: ["example.com"] }, undefined],
    ["example.com.evil.test", { allowed_domains: ["example.com"] }, /not among the domains/],
    ["notexample.com", { allowed_domains: ["example.com"] }, /not among the domains/],
    ["ads.example.com", { blocked_domains: ["*.ads.example.com", "ads.example.com"] }, /blocked/],
    ["example.org", {}, undefined],
  ])("%s with %o", (host, settings, expected) => {
    const refusal = domainRefusal(host, settings, toolRules("fetch_url"));
    if (expected) expect(refusal).toMatch(expected);
    else expect(refusal).toBeUndefined();
  });
});

describe("webhook", () => {
  const context = (settings = {}) =>
    ({
      ownerId: "o",
      conversationId: "c",
      runId: "r",
      signal: new AbortController().signal,
      tools: { get: () => undefined, add: () => {} },
      settings,
    }) as never;
  const send = async (url: string, settings = {}) => {
    const { webhook } = await import("@/lib/tools/native/webhook");
    const parsed = webhook.parse({ url, payload: { hello: "world" } });
    if (!parsed.ok) throw new Error(parsed.problems.join("; "));
    return webhook.execute(parsed.input, context(settings));
  };

  it("goes through the fetch guard: loopback, private and metadata addresses are refused before any packet", async () => {
    for (const url of [
      "http://127.0.0.1:9/hook",
      "http://169.254.169.254/latest",
      "http://[::1]/",
      "http://localhost/hook",
    ]) {
      expect(await send(url)).toMatchObject({
        ok: false,
        error: expect.stringMatching(/not (a public address|allowed)/),
      });
    }
  });

  it("keeps the profile's domain rules", async () => {
    expect(await send("https://hooks.evil.test/x", { allowed_domains: ["hooks.example.com"] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("not among the domains"),
    });
    expect(await send("https://hooks.example.com/x", { blocked_domains: ["example.com"] })).toMatchObject({
      ok: false,
      error: expect.stringContaining("blocked"),
    });
  });
});

/** xml-pipeline's own organism.yaml keys (its examples/coding-swarm and listener schema), trimmed. */
const XML_PIPELINE_ORGANISM = `organism:
  name: "CodingSwarm-01"
  port: 8765
max_concurrent_pipelines: 50
thread_scheduling: breadth-first
llm:
  strategy: failover
  backends:
    - provider: xai
      api_key_env: XAI_API_KEY
listeners:
  - name: architect
    payload_class: handlers.coding_swarm.payloads.SwarmMessage
    handler: handlers.coding_swarm.architect.handle_architect
    description: >
      Designs WIT interface definitions.
    agent: true
    timeout_seconds: 120
    peers: [coder]
    prompt: |
      You are a WIT interface architect.
    allowed_tools: [files, keyvalue]
    blocked_tools: [write_file]
  - name: coder
    description: Writes code and asks before each tool.
    tools: [run_code, key_value_store, librarian_store]
    confirm_actions: true
    model: llama3
    temperature: 0.2
  - name: greeter
    handler: handlers.hello.handle_greeting
    broadcast: false
    blocked_tools: [fetch, search, librarian]
`;

describe("an organism.yaml (the native tools spec's config file)", () => {
  const parse = (text: string) => parseProfiles(text, "organism.yaml", BUILTIN_TOOL_NAMES);
  const problem = (text: string) => {
    try {
      parse(text);
    } catch (error) {
      return (error as Error).message;
    }
  };

  /** A profile's MCP keys and plan first when it sets none (tests/unit/profiles-mcp.test.ts has the MCP ones). */
  const UNSET = {
    mcp_servers: [],
    personal_mcp_servers: true,
    approve_mcp_tools: "unless_read_only",
    network: {},
    planner: false,
  };

  it("reads the spec's example: its listeners are the profiles, the first the default", () => {
    const file = parse(SPEC_ORGANISM);
    expect(file.default_profile).toBe("researcher");
    expect(file.notApplied).toEqual([]);
    expect(file.profiles).toEqual([
      {
        name: "researcher",
        tools: ["think", "web_search", "fetch_url", "read_file", "calculate"],
        tool_config: {
          fetch_url: { allowed_domains: ["api.example.com", "*.github.com"] },
          read_file: { allowed_paths: ["/data/research/**"] },
        },
        approval: [],
        ...UNSET,
      },
      {
        name: "writer",
        tools: ["think", "write_file", "send_email"],
        tool_config: {
          write_file: { allowed_paths: ["/output/**"] },
          send_email: { allowed_recipients: ["team@example.com"] },
        },
        approval: [],
        ...UNSET,
      },
    ]);
    // "*.github.com" reaches github.com's subdomains, as the spec means.
    const settings = file.profiles[0].tool_config.fetch_url;
    expect(domainRefusal("api.github.com", settings, toolRules("fetch_url"))).toBeUndefined();
    expect(domainRefusal("api.example.com", settings, toolRules("fetch_url"))).toBeUndefined();
    expect(domainRefusal("evil.test", settings, toolRules("fetch_url"))).toMatch(/not among the domains/);
  });

  it("maps the spec's key_value_store and xml-pipeline's tool categories to Toolsmith's tools", () => {
    const file = parse(XML_PIPELINE_ORGANISM);
    const [architect, coder, greeter] = file.profiles;
    expect(architect).toMatchObject({
      name: "architect",
      description: "Designs WIT interface definitions.\n",
      tools: ["think", "read_file", "list_dir", "key_value_get", "key_value_set", "key_value_delete"],
      approval: [],
    });
    expect(coder).toMatchObject({
      tools: ["think", "run_code", "key_value_get", "key_value_set", "key_value_delete", "librarian_store"],
      // confirm_actions: a person says yes before each tool that acts.
      approval: ["run_code", "key_value_get", "key_value_set", "key_value_delete", "librarian_store"],
    });
    // Neither tools nor allowed_tools: the built-in default's tools, less the blocked ones.
    expect(greeter.tools).toEqual([
      "think",
      "register_tool",
      "calculate",
      "run_code",
      "run_python",
      "key_value_get",
      "key_value_set",
      "key_value_delete",
      "read_file",
      "write_file",
      "list_dir",
    ]);
    const spec = parse(`listeners:
  - name: notes
    tools: [key_value_store]
    tool_config:
      key_value_store:
        rate_limit: { calls: 5, per_seconds: 60 }
`);
    expect(spec.profiles[0].tool_config).toEqual({
      key_value_get: { rate_limit: { calls: 5, per_seconds: 60 } },
      key_value_set: { rate_limit: { calls: 5, per_seconds: 60 } },
      key_value_delete: { rate_limit: { calls: 5, per_seconds: 60 } },
    });
  });

  it("says, by line, which of xml-pipeline's keys it reads but does not apply, and why", () => {
    expect(parse(XML_PIPELINE_ORGANISM).notApplied).toEqual([
      "organism.yaml, line 1: organism, max_concurrent_pipelines, thread_scheduling, llm not applied: xml-pipeline's runtime; Toolsmith's is set by environment variables",
      "organism.yaml, line 13 (listeners.0): payload_class, handler, agent, timeout_seconds, peers, prompt not applied: xml-pipeline's message bus (handlers, payload classes, routing between listeners); a profile is one agent; the agent's system prompt is Toolsmith's own, the same in every profile",
      "organism.yaml, line 28 (listeners.1): model, temperature not applied: the model and its settings are the environment's (TOOLSMITH_MODEL or LLM_MODEL), for every profile",
      "organism.yaml, line 31 (listeners.2): handler, broadcast not applied: xml-pipeline's message bus (handlers, payload classes, routing between listeners); a profile is one agent",
    ]);
  });

  it.each([
    [
      SPEC_ORGANISM.replace("- calculate", "- teleport"),
      /^organism\.yaml, line 7 \(listeners\.0\.tools\.3\): "teleport" is not a tool; the tools are /,
    ],
    [
      SPEC_ORGANISM.replace("      write_file:\n", "      teleport:\n"),
      /line 19 \(listeners\.1\.tool_config\.teleport\): "teleport" is not a tool/,
    ],
    [
      SPEC_ORGANISM.replace("  - name: writer", "  - name: writer\n    tool_confg: {}"),
      /line 15 \(listeners\.1\): Unrecognized key: "tool_confg"/,
    ],
    [
      SPEC_ORGANISM.replace("  - name: writer", "  - name: writer\n    allowed_tools: [convert]"),
      /line 15 \(listeners\.1\.allowed_tools\.0\): "convert" is neither a tool category \(calculate, fetch, files, shell, search, keyvalue, librarian\) nor a tool; Toolsmith has no convert tool/,
    ],
    [
      SPEC_ORGANISM.replace("  - name: writer", "  - name: writer\n    allowed_tools: [files]"),
      /line 15 \(listeners\.1\.allowed_tools\): give the listener's tools as tools or as allowed_tools, not both/,
    ],
    [
      SPEC_ORGANISM.replace("name: writer", "name: researcher"),
      /line 14 \(listeners\.1\.name\): the profile name "researcher" is used twice/,
    ],
    [`${SPEC_ORGANISM}default_profile: editor\n`, /line 23 \(default_profile\): no profile is named "editor"/],
    [`${SPEC_ORGANISM}pipelines: 3\n`, /line 23: Unrecognized key: "pipelines"/],
    ["listeners: []\n", /\(listeners\): Too small/],
  ])("names the line and the problem of a listener it cannot use (%#)", (text, message) => {
    expect(problem(text)).toMatch(message);
  });

  it("takes default_profile to choose another listener, and Toolsmith's own keys in a listener", () => {
    const file = parse(
      `${SPEC_ORGANISM.replace("  - name: writer", "  - name: writer\n    approval: [send_email]\n    think: false")}default_profile: writer\n`,
    );
    expect(file.default_profile).toBe("writer");
    expect(file.profiles[1]).toMatchObject({ tools: ["write_file", "send_email"], approval: ["send_email"] });
  });
});

describe("an organism.yaml read before start-up has checked the tools' names", () => {
  it("takes tool names and categories in allowed_tools alike", () => {
    const file = parseProfiles(
      "listeners:\n  - name: a\n    allowed_tools: [files, calculate, run_code]\n",
      "organism.yaml",
    );
    expect(file.profiles[0].tools).toEqual(["think", "read_file", "write_file", "list_dir", "calculate", "run_code"]);
  });
});
