import { describe, expect, it } from "vitest";
import { ConfigFileError, parseProfiles } from "@/lib/settings/profiles";
import {
  describeHeaders,
  fileServerSpec,
  mcpCallNeedsApproval,
  mcpRateLimit,
  mcpToolAllowed,
  urlProblem,
} from "@/lib/settings/mcp-servers";
import { BUILTIN_TOOL_NAMES } from "@/lib/tools/names";

const FILE = `mcp_servers:
  - name: files
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", /srv/shared]
    env:
      NODE_ENV: production
  - name: tickets
    url: https://tickets.example.com/mcp
    headers:
      Authorization: Bearer operator-secret
profiles:
  - name: support
    tools: [calculate]
    mcp_servers: [tickets]
    mcp_tools: [tickets__search, tickets__read]
  - name: ops
    tools: [calculate]
    mcp_servers: [files, tickets]
    personal_mcp_servers: false
    approve_mcp_tools: always
  - name: plain
    tools: [calculate]
default_profile: support
`;

const parse = (text: string) => parseProfiles(text, "toolsmith.config.yaml", BUILTIN_TOOL_NAMES);
const problem = (text: string) => {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigFileError);
    return (error as Error).message;
  }
  throw new Error("the file was accepted");
};

describe("the profiles file's MCP servers", () => {
  it("reads the servers, and each profile's servers, tools and approval", () => {
    const file = parse(FILE);
    expect(file.mcp_servers).toEqual([
      {
        name: "files",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/shared"],
        env: { NODE_ENV: "production" },
      },
      {
        name: "tickets",
        url: "https://tickets.example.com/mcp",
        headers: { Authorization: "Bearer operator-secret" },
      },
    ]);
    const keys = file.profiles.map(({ name, mcp_servers, personal_mcp_servers, mcp_tools, approve_mcp_tools }) => ({
      name,
      mcp_servers,
      personal_mcp_servers,
      mcp_tools,
      approve_mcp_tools,
    }));
    expect(keys).toEqual([
      {
        name: "support",
        mcp_servers: ["tickets"],
        personal_mcp_servers: true,
        mcp_tools: ["tickets__search", "tickets__read"],
        approve_mcp_tools: "unless_read_only",
      },
      {
        name: "ops",
        mcp_servers: ["files", "tickets"],
        personal_mcp_servers: false,
        mcp_tools: undefined,
        approve_mcp_tools: "always",
      },
      // Absent: none of the file's servers, a person's own, every tool, approval by the tools' hints.
      {
        name: "plain",
        mcp_servers: [],
        personal_mcp_servers: true,
        mcp_tools: undefined,
        approve_mcp_tools: "unless_read_only",
      },
    ]);
    expect(file.mcp_servers.map(fileServerSpec)).toEqual([
      {
        name: "files",
        trusted: true,
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/srv/shared"],
        env: { NODE_ENV: "production" },
      },
      {
        name: "tickets",
        trusted: true,
        url: "https://tickets.example.com/mcp",
        headers: { Authorization: "Bearer operator-secret" },
      },
    ]);
  });

  it("is optional: a file without mcp_servers has none, and its profiles none of the file's", () => {
    const file = parse("profiles:\n  - name: a\n    tools: [calculate]\ndefault_profile: a\n");
    expect(file.mcp_servers).toEqual([]);
    expect(file.profiles[0]).toMatchObject({ mcp_servers: [], personal_mcp_servers: true });
  });

  it.each([
    [
      FILE.replace("mcp_servers: [tickets]\n", "mcp_servers: [tickets, jira]\n"),
      `toolsmith.config.yaml, line 14 (profiles.0.mcp_servers.1): no MCP server is named "jira"; the file's MCP servers are files, tickets`,
    ],
    [
      FILE.replace(
        "    url: https://tickets.example.com/mcp\n",
        "    url: https://tickets.example.com/mcp\n    command: tickets-server\n",
      ),
      "toolsmith.config.yaml, line 9 (mcp_servers.1.command): a server has a url (Streamable HTTP) or a command (stdio), not both",
    ],
    [
      FILE.replace("  - name: tickets\n", "  - name: files\n"),
      `toolsmith.config.yaml, line 7 (mcp_servers.1.name): the MCP server name "files" is used twice`,
    ],
    [
      FILE.replace("  - name: tickets\n", "  - name: Tickets!\n"),
      /^toolsmith\.config\.yaml, line 7 \(mcp_servers\.1\.name\): a server's name is lower-case letters, digits, _ and -/,
    ],
    [
      FILE.replace("  - name: tickets\n", "  - name: my__tickets\n"),
      /line 7 \(mcp_servers\.1\.name\): a server's name may not contain "__"/,
    ],
    [
      FILE.replace("  - name: tickets\n", `  - name: ${"t".repeat(33)}\n`),
      /line 7 \(mcp_servers\.1\.name\): a server's name is at most 32 characters/,
    ],
    [
      FILE.replace("url: https://tickets.example.com/mcp", "url: ftp://tickets.example.com/mcp"),
      /line 8 \(mcp_servers\.1\.url\): the URL must be http:\/\/ or https:\/\/ \(got ftp:\)/,
    ],
    [
      FILE.replace("url: https://tickets.example.com/mcp", "url: https://bot:pw@tickets.example.com/mcp"),
      /line 8 \(mcp_servers\.1\.url\): the URL may not carry a user or password/,
    ],
    [
      FILE.replace("  - name: tickets\n    url: https://tickets.example.com/mcp\n", "  - name: tickets\n"),
      /line 7 \(mcp_servers\.1\.name\): the server "tickets" needs a url \(Streamable HTTP\) or a command \(stdio\)/,
    ],
    [
      FILE.replace("    env:\n      NODE_ENV: production\n", "    headers:\n      X-Key: one\n"),
      /line 5 \(mcp_servers\.0\.headers\): headers go with a url; a command's server takes env/,
    ],
    [
      FILE.replace(
        "    mcp_servers: [files, tickets]\n",
        "    mcp_servers: [files, tickets]\n    mcp_tools: [search]\n",
      ),
      /line 19 \(profiles\.1\.mcp_tools\.0\): an MCP tool is named <server>__<tool>/,
    ],
    [
      FILE.replace(
        "    mcp_servers: [files, tickets]\n",
        "    mcp_servers: [files]\n    mcp_tools: [tickets__search]\n",
      ),
      /line 19 \(profiles\.1\.mcp_tools\.0\): "tickets__search" is a tool of the server "tickets", which this profile does not use/,
    ],
    [
      FILE.replace("approve_mcp_tools: always", "approve_mcp_tools: sometimes"),
      /line 20 \(profiles\.1\.approve_mcp_tools\): .*"never"\|"unless_read_only"\|"always"/,
    ],
    [
      FILE.replace("      NODE_ENV: production\n", "      NODE ENV: production\n"),
      /line 6 \(mcp_servers\.0\.env\.NODE ENV\): "NODE ENV" is not an environment variable's name: letters, digits and _/,
    ],
  ])("names the line and the problem of an MCP server or key it cannot use (%#)", (text, message) => {
    if (typeof message === "string") expect(problem(text)).toBe(message);
    else expect(problem(text)).toMatch(message);
  });

  it("reads the same keys in an organism.yaml, where confirm_actions asks before every MCP tool too", () => {
    const organism = `mcp_servers:
  - name: tickets
    url: http://127.0.0.1:9000/mcp
listeners:
  - name: greeter
    tools: [calculate]
    mcp_servers: [tickets]
    confirm_actions: true
  - name: helper
    tools: [calculate]
    personal_mcp_servers: false
`;
    const file = parse(organism);
    expect(file.mcp_servers).toEqual([{ name: "tickets", url: "http://127.0.0.1:9000/mcp" }]);
    expect(
      file.profiles.map(({ name, mcp_servers, personal_mcp_servers, approve_mcp_tools }) => [
        name,
        mcp_servers,
        personal_mcp_servers,
        approve_mcp_tools,
      ]),
    ).toEqual([
      ["greeter", ["tickets"], true, "always"],
      ["helper", [], false, "unless_read_only"],
    ]);
    expect(problem(organism.replace("    personal_mcp_servers: false\n", "    mcp_servers: [nowhere]\n"))).toBe(
      `toolsmith.config.yaml, line 11 (listeners.1.mcp_servers.0): no MCP server is named "nowhere"; the file's MCP servers are tickets`,
    );
  });
});

describe("a profile's rate limits of MCP tools (tool_config)", () => {
  const LIMITS = FILE.replace(
    "    mcp_tools: [tickets__search, tickets__read]\n",
    `    mcp_tools: [tickets__search, tickets__read]
    tool_config:
      calculate: { rate_limit: { calls: 9, per_seconds: 60 } }
      tickets__search: { rate_limit: { calls: 2, per_seconds: 10 } }
      tickets__*: { rate_limit: { calls: 5, per_seconds: 60 } }
      notes__*: { rate_limit: { calls: 1, per_seconds: 1 } }
`,
  );

  it("reads a tool's entry (server__tool) and a whole server's (server__*) beside the built-ins'", () => {
    const support = parse(LIMITS).profiles[0];
    expect(support.tool_config).toEqual({
      calculate: { rate_limit: { calls: 9, per_seconds: 60 } },
      tickets__search: { rate_limit: { calls: 2, per_seconds: 10 } },
      "tickets__*": { rate_limit: { calls: 5, per_seconds: 60 } },
      // A person's server (or everyone's) may be called notes: the profile takes them.
      "notes__*": { rate_limit: { calls: 1, per_seconds: 1 } },
    });
    // The tool's own entry first, its own bucket; else the server's, one bucket for all its tools; else none.
    expect(mcpRateLimit(support.tool_config, "tickets", "tickets__search")).toEqual({
      bucket: "tickets__search",
      limit: { calls: 2, per_seconds: 10 },
    });
    for (const tool of ["tickets__read", "tickets__delete"])
      expect(mcpRateLimit(support.tool_config, "tickets", tool)).toEqual({
        bucket: "tickets__*",
        limit: { calls: 5, per_seconds: 60 },
      });
    expect(mcpRateLimit(support.tool_config, "files", "files__read_file")).toBeUndefined();
    // A built-in's entry is never an MCP tool's.
    expect(mcpRateLimit(support.tool_config, "calculate", "calculate__x")).toBeUndefined();
  });

  it.each([
    [
      LIMITS.replace("tickets__search: { rate_limit", "tickets__search: { allowed_domains: [example.com], rate_limit"),
      /^toolsmith\.config\.yaml, line 18 \(profiles\.0\.tool_config\.tickets__search\.allowed_domains\): only rate_limit applies to an MCP tool's calls \(tickets__search\); allowed_domains is a setting of the built-in tools/,
    ],
    [
      LIMITS.replace("tickets__*: { rate_limit", "tickets__*: { shell: true, rate_limit"),
      /line 19 \(profiles\.0\.tool_config\.tickets__\*\.shell\): only rate_limit applies to an MCP tool's calls/,
    ],
    [
      LIMITS.replace("      notes__*:", "      Notes__x:"),
      /line 20 \(profiles\.0\.tool_config\.Notes__x\): "Notes__x" is not a tool; the tools are .*; an MCP tool is named <server>__<tool>, e\.g\. files__read_file, or <server>__\* for all of a server's tools$/,
    ],
    [
      LIMITS.replace("      notes__*:", "      searchy:"),
      /line 20 \(profiles\.0\.tool_config\.searchy\): "searchy" is not a tool; the tools are /,
    ],
    [
      LIMITS.replace("tickets__*: { rate_limit: { calls: 5", "tickets__*: { rate_limit: { calls: 0"),
      /line 19 \(profiles\.0\.tool_config\.tickets__\*\.rate_limit\.calls\): /,
    ],
    [
      FILE.replace(
        "    mcp_servers: [files, tickets]\n",
        "    mcp_servers: [files]\n    tool_config:\n      tickets__*: { rate_limit: { calls: 1, per_seconds: 1 } }\n",
      ),
      /line 20 \(profiles\.1\.tool_config\.tickets__\*\): "tickets__\*" is a tool of the server "tickets", which this profile does not use/,
    ],
  ])("refuses at load what cannot apply to an MCP tool, naming the line (%#)", (text, message) => {
    expect(problem(text)).toMatch(message);
  });
});

describe("what a profile decides about an MCP tool", () => {
  it("asks approval unless the tool says it only reads, unless the profile says never or always", () => {
    const cases = [
      undefined,
      {},
      { readOnlyHint: true },
      { readOnlyHint: false },
      { readOnlyHint: true, destructiveHint: true },
      { destructiveHint: false },
    ];
    expect(cases.map((hints) => mcpCallNeedsApproval("unless_read_only", hints))).toEqual([
      true,
      true,
      false,
      true,
      true,
      true,
    ]);
    expect(cases.map((hints) => mcpCallNeedsApproval("never", hints))).toEqual(cases.map(() => false));
    expect(cases.map((hints) => mcpCallNeedsApproval("always", hints))).toEqual(cases.map(() => true));
  });

  it("offers every tool of its servers, or only those mcp_tools lists", () => {
    expect(mcpToolAllowed({}, "tickets", "delete")).toBe(true);
    const only = { mcp_tools: ["tickets__search"] };
    expect(mcpToolAllowed(only, "tickets", "search")).toBe(true);
    expect(mcpToolAllowed(only, "tickets", "delete")).toBe(false);
    expect(mcpToolAllowed(only, "other", "search")).toBe(false);
  });
});

describe("a server's address and headers, as anyone but its client sees them", () => {
  it("names the headers, and says bearer only for an Authorization that is one", () => {
    expect(describeHeaders(undefined)).toEqual({ headerNames: [], bearer: false });
    expect(describeHeaders({ authorization: "Bearer x", "X-Key": "k" })).toEqual({
      headerNames: ["X-Key"],
      bearer: true,
    });
    expect(describeHeaders({ Authorization: "Basic dXNlcjpwdw==" })).toEqual({
      headerNames: ["Authorization"],
      bearer: false,
    });
  });

  it("takes http and https URLs only, without credentials in them", () => {
    expect(urlProblem("https://mcp.example.com/mcp")).toBeUndefined();
    expect(urlProblem("http://127.0.0.1:8080/mcp")).toBeUndefined();
    expect(urlProblem("ws://mcp.example.com")).toMatch(/http:\/\/ or https:\/\/ \(got ws:\)/);
    expect(urlProblem("mcp.example.com/mcp")).toMatch(/absolute/);
    expect(urlProblem("https://token@mcp.example.com")).toMatch(/user or password/);
  });
});
