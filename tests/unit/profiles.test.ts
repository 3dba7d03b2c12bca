import fs from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { ConfigFileError, findProfile, parseProfiles } from "@/lib/settings/profiles";
import { domainRefusal } from "@/lib/tools/native/fetch-url";
import { BUILTIN_TOOL_NAMES } from "@/lib/tools/names";

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
      ["researcher", true],
      ["archivist", false],
    ]);
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
      /^toolsmith\.config\.yaml, line 5 \(profiles\.0\.tool_config\): "teleport" is not a tool; the tools are /,
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
    const refusal = domainRefusal(host, settings);
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
