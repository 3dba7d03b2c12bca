/**
 * Agent profiles, after the native tools document's organism.yaml: which tools a conversation's runs may use, and
 * each tool's settings. Read once from TOOLSMITH_CONFIG (default toolsmith.config.yaml in the working directory);
 * without a file, the built-in default applies. An invalid file stops start-up with the line and the problem.
 * Start-up gives the tools' names (lib/tools/names.ts), so that settings need not know the tools.
 * Two shapes: Toolsmith's `profiles:`, and xml-pipeline's organism.yaml, whose `listeners:` are read as profiles.
 */
import fs from "node:fs";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { processWide } from "@/lib/platform/process-wide";
import { environment } from "./environment.mjs";
import {
  MCP_APPROVAL,
  MCP_EVERY_TOOL,
  MCP_TOOL_KEY,
  MCP_TOOL_SEPARATOR,
  McpServerEntry,
  McpServerName,
  serverOfKey,
} from "./mcp-servers";

const AllowedDomains = z
  .array(z.string().min(1))
  .optional()
  .describe(
    "Hosts (and their subdomains) that may be reached; absent: any public host. An IP address listed here may be " +
      "reached even when it is not public.",
  );
const BlockedDomains = z.array(z.string().min(1)).optional().describe("Hosts (and their subdomains) never reached.");

const ToolSettings = z.strictObject({
  allowed_domains: AllowedDomains,
  blocked_domains: BlockedDomains,
  allowed_paths: z
    .array(z.string().min(1))
    .optional()
    .describe(
      "For the file tools, globs over workspace paths, whose root is / (/data/research/**, /output/*.csv; a plain " +
        "folder allows what is in it); for the librarian tools, collections. Absent: all of them.",
    ),
  allowed_commands: z.array(z.string().min(1)).optional().describe("Programs run_command may start; absent: any."),
  shell: z.boolean().optional().describe("run_command through sh -c (pipes, globs); off: plain words only."),
  allowed_recipients: z
    .array(z.string().min(1))
    .optional()
    .describe("Addresses, or @domains, send_email may write to; absent: any."),
  rate_limit: z.strictObject({ calls: z.number().int().min(1), per_seconds: z.number().int().min(1) }).optional(),
});
export type ToolSettings = z.infer<typeof ToolSettings>;

const notATool = (names: unknown[], toolNames: readonly string[]) =>
  `${names.map((name) => JSON.stringify(name)).join(", ")} ${names.length === 1 ? "is not a tool" : "are not tools"}; ` +
  `the tools are ${toolNames.join(", ")}`;

const KEY_VALUE = ["key_value_get", "key_value_set", "key_value_delete"];
const LIBRARIAN = ["librarian_store", "librarian_get", "librarian_query", "librarian_search"];

/** The native tools spec names the key-value store as one tool, `key_value_store`; here it is three. */
const TOOL_GROUPS: Record<string, string[]> = { key_value_store: KEY_VALUE };

/**
 * xml-pipeline's `allowed_tools` / `blocked_tools` name categories of native tools (its listener schema's enum);
 * `convert` has no Toolsmith counterpart, so naming it is an error.
 */
const TOOL_CATEGORIES: Record<string, string[]> = {
  calculate: ["calculate"],
  fetch: ["fetch_url"],
  files: ["read_file", "write_file", "list_dir"],
  shell: ["run_command"],
  search: ["web_search"],
  keyvalue: KEY_VALUE,
  librarian: LIBRARIAN,
};

/**
 * organism.yaml's keys Toolsmith reads but does not apply, and why; a listener's and the file's. Any other unknown key
 * is an error, as in a profiles file.
 */
const NOT_APPLIED: Record<string, string> = {
  ...Object.fromEntries(
    ["agent", "tool", "gateway", "broadcast", "handler", "payload_class", "peers", "metadata", "timeout_seconds"].map(
      (key) => [
        key,
        "xml-pipeline's message bus (handlers, payload classes, routing between listeners); a profile is one agent",
      ],
    ),
  ),
  prompt: "the agent's system prompt is Toolsmith's own, the same in every profile",
  ...Object.fromEntries(
    ["model", "temperature", "max_tokens"].map((key) => [
      key,
      "the model and its settings are the environment's (TOOLSMITH_MODEL or LLM_MODEL), for every profile",
    ]),
  ),
  verbose: "Toolsmith's log is the run's trace, always kept",
};
const NOT_APPLIED_AT_TOP: Record<string, string> = Object.fromEntries(
  [
    "organism",
    "llm",
    "llm_backends",
    "server",
    "auth",
    "backend",
    "max_concurrent_pipelines",
    "max_concurrent_handlers",
    "max_concurrent_per_agent",
    "thread_scheduling",
  ].map((key) => [key, "xml-pipeline's runtime; Toolsmith's is set by environment variables"]),
);
const ignoredKeys = (reasons: Record<string, string>) =>
  Object.fromEntries(Object.keys(reasons).map((key) => [key, z.unknown().optional()]));

/** A profile as runs use it: planning changes nothing, so its tools have think unless it says `think: false`. */
const keepsThink = (profile: { think: boolean; tools: string[] }) => profile.think || !profile.tools.includes("think");
const THINK_CONFLICT = {
  path: ["think"],
  message: "think: false leaves out the think tool that tools lists; keep one of the two",
};
function withThink<T extends { think: boolean; tools: string[] }>({ think, ...profile }: T) {
  return { ...profile, tools: think && !profile.tools.includes("think") ? ["think", ...profile.tools] : profile.tools };
}

/** The built-in default's tools (think comes as in every profile): code, guarded network, the stores, the files. */
const DEFAULT_TOOLS = [
  "register_tool",
  "calculate",
  "run_code",
  "run_python",
  "fetch_url",
  "web_search",
  ...KEY_VALUE,
  ...LIBRARIAN,
  "read_file",
  "write_file",
  "list_dir",
];

type McpProfileKeys = {
  mcp_servers: string[];
  personal_mcp_servers: boolean;
  mcp_tools?: string[];
  tool_config: Record<string, unknown>;
};

const MCP_TOOL_NAMING = `an MCP tool is named <server>${MCP_TOOL_SEPARATOR}<tool>, e.g. files${MCP_TOOL_SEPARATOR}read_file`;
/** An MCP tool in tool_config, or all of a server's (`<server>__*`): only their calls' rate limit applies. */
const McpToolKey = z.string().regex(MCP_TOOL_KEY, MCP_TOOL_NAMING);
const isMcpKey = (key: string) => key.includes(MCP_TOOL_SEPARATOR);

/** tool_config's settings of an MCP tool or server are its rate limit alone: the others are the built-ins'. */
function onlyRateLimits(settings: Record<string, object | undefined>, context: z.RefinementCtx) {
  for (const [key, value] of Object.entries(settings))
    for (const setting of Object.keys(value ?? {}))
      if (isMcpKey(key) && setting !== "rate_limit")
        context.addIssue({
          code: "custom",
          path: [key, setting],
          message:
            `only rate_limit applies to an MCP tool's calls (${key}); ${setting} is a setting of the built-in ` +
            `tools, which the MCP server's own configuration stands for`,
        });
}

/** The file's schema: with `toolNames`, a profile may name only those tools; without, any (start-up checked them). */
function configFile(toolNames?: readonly string[]) {
  const known = (names: string[]) => !toolNames || names.every((name) => toolNames.includes(name));
  const groups = Object.keys(TOOL_GROUPS).filter((group) => known(TOOL_GROUPS[group]));
  const ToolName = toolNames
    ? z.enum([...toolNames, ...groups] as [string, ...string[]], {
        error: (issue) => notATool([issue.input], toolNames),
      })
    : z.string();
  const expand = (name: string) => TOOL_GROUPS[name] ?? [name];
  const ToolNames = z.array(ToolName).transform((names) => [...new Set(names.flatMap(expand))]);
  const Profile = z.strictObject({
    name: z.string().regex(/^[\w-]{1,64}$/, "a name of letters, digits, _ and -"),
    description: z.string().max(500).optional(),
    tools: ToolNames,
    think: z.boolean().default(true).describe("Offer think, the planning tool, listed or not; false leaves it out."),
    planner: z
      .boolean()
      .default(false)
      .describe("Plan first: a run's first step writes a checklist (plan), later steps keep it current (update_plan)."),
    network: z
      .strictObject({ allowed_domains: AllowedDomains, blocked_domains: BlockedDomains })
      .default({})
      .describe(
        "What the code of tools may reach (JavaScript's fetch, Python's requests and urllib), beyond the guard's " +
          "public addresses only.",
      ),
    tool_config: z
      .partialRecord(z.union([ToolName, McpToolKey]), ToolSettings, {
        // A key that is neither a tool nor an MCP tool's `<server>__<tool>` (or `<server>__*`).
        error: (issue) => {
          const { code, input } = issue as { code: string; input?: unknown };
          return code === "invalid_key" && toolNames
            ? `${notATool([input], toolNames)}; ${MCP_TOOL_NAMING}, or <server>${MCP_TOOL_SEPARATOR}${MCP_EVERY_TOOL} ` +
                `for all of a server's tools`
            : undefined;
        },
      })
      .default({})
      .superRefine(onlyRateLimits)
      .transform((settings) =>
        Object.fromEntries(
          Object.entries(settings).flatMap(([name, value]) => expand(name).map((tool) => [tool, value] as const)),
        ),
      ),
    approval: ToolNames.default([]),
    mcp_servers: z
      .array(McpServerName)
      .default([])
      .describe("The file's MCP servers its runs may use; absent: none of them."),
    personal_mcp_servers: z
      .boolean()
      .default(true)
      .describe(
        "Offer the MCP servers connected through the API: a person's own and those an admin connected for everyone; " +
          "false keeps both out.",
      ),
    mcp_tools: z
      .array(McpToolKey)
      .optional()
      .describe("Only these MCP tools (<server>__<tool>); absent: every tool of the servers it uses."),
    approve_mcp_tools: z
      .enum(MCP_APPROVAL)
      .default("unless_read_only")
      .describe("Which MCP tools ask before they run: never, unless_read_only (by the tool's hints), always."),
  });

  const categories = Object.keys(TOOL_CATEGORIES).filter((category) => known(TOOL_CATEGORIES[category]));
  // Without the tools' names, as ToolName: any name (start-up checked them).
  const Category = toolNames
    ? z.enum([...categories, ...toolNames] as [string, ...string[]], {
        error: (issue) =>
          `${JSON.stringify(issue.input)} is neither a tool category (${categories.join(", ")}) nor a tool` +
          (issue.input === "convert" ? "; Toolsmith has no convert tool" : ""),
      })
    : z.string();
  const Categories = z.array(Category).transform((names) => names.flatMap((name) => TOOL_CATEGORIES[name] ?? [name]));
  /**
   * An organism.yaml listener as a profile: `tools` (or xml-pipeline's `allowed_tools`; neither, the built-in default's
   * tools) less `blocked_tools`; `confirm_actions: true` asks a person before each of its tools.
   */
  const Listener = Profile.omit({ tools: true })
    .extend({
      tools: ToolNames.optional(),
      allowed_tools: Categories.optional(),
      blocked_tools: Categories.default([]),
      confirm_actions: z.boolean().default(false),
      ...ignoredKeys(NOT_APPLIED),
    })
    .refine((listener) => !(listener.tools && listener.allowed_tools), {
      path: ["allowed_tools"],
      message: "give the listener's tools as tools or as allowed_tools, not both",
    })
    .transform(
      ({ name, description, think, planner, network, tool_config, approval, confirm_actions, ...listener }) => {
        const listed = listener.tools ?? listener.allowed_tools ?? DEFAULT_TOOLS;
        const tools = [...new Set(listed)].filter((tool) => !listener.blocked_tools.includes(tool));
        const { mcp_servers, personal_mcp_servers, mcp_tools, approve_mcp_tools } = listener;
        return {
          name,
          description,
          think: think && !listener.blocked_tools.includes("think"),
          planner,
          network,
          tools,
          tool_config,
          approval: confirm_actions ? tools.filter((tool) => tool !== "think") : approval,
          mcp_servers,
          personal_mcp_servers,
          mcp_tools,
          // confirm_actions asks before every tool, MCP ones too.
          approve_mcp_tools: confirm_actions ? ("always" as const) : approve_mcp_tools,
        };
      },
    );

  /** The profiles' names are unique, and the default one of them. */
  const checkNames =
    (list: "profiles" | "listeners") =>
    (file: { profiles: { name: string }[]; default_profile: string }, context: z.RefinementCtx) => {
      const names = file.profiles.map((profile) => profile.name);
      names.forEach((name, index) => {
        if (names.indexOf(name) !== index)
          context.addIssue({
            code: "custom",
            path: [list, index, "name"],
            message: `the profile name "${name}" is used twice`,
          });
      });
      if (!names.includes(file.default_profile))
        context.addIssue({
          code: "custom",
          path: ["default_profile"],
          message: `no profile is named "${file.default_profile}"`,
        });
    };

  /**
   * The file's MCP servers have unique names, and a profile names only those (its mcp_tools, only servers it can
   * use: the file's it names, or a person's when it takes them).
   */
  const checkMcpServers =
    (list: "profiles" | "listeners") =>
    (file: { mcp_servers: McpServerEntry[]; profiles: McpProfileKeys[] }, context: z.RefinementCtx) => {
      const names = file.mcp_servers.map((server) => server.name);
      names.forEach((name, index) => {
        if (names.indexOf(name) !== index)
          context.addIssue({
            code: "custom",
            path: ["mcp_servers", index, "name"],
            message: `the MCP server name "${name}" is used twice`,
          });
      });
      const known = names.length ? `the file's MCP servers are ${names.join(", ")}` : "the file has no mcp_servers";
      file.profiles.forEach((profile, index) => {
        profile.mcp_servers.forEach((name, at) => {
          if (!names.includes(name))
            context.addIssue({
              code: "custom",
              path: [list, index, "mcp_servers", at],
              message: `no MCP server is named "${name}"; ${known}`,
            });
        });
        const mcpKeys = [
          ...(profile.mcp_tools ?? []).map((tool, at) => [tool, "mcp_tools", at] as const),
          ...Object.keys(profile.tool_config)
            .filter(isMcpKey)
            .map((tool) => [tool, "tool_config", tool] as const),
        ];
        for (const [tool, key, at] of mcpKeys) {
          const server = serverOfKey(tool);
          if (!profile.mcp_servers.includes(server) && !profile.personal_mcp_servers)
            context.addIssue({
              code: "custom",
              path: [list, index, key, at],
              message:
                `"${tool}" is a tool of the server "${server}", which this profile does not use (its mcp_servers ` +
                `are ${profile.mcp_servers.join(", ") || "none"}, and personal_mcp_servers is false)`,
            });
        }
      });
    };
  const McpServers = z.array(McpServerEntry).default([]);

  const profilesFile = z
    .strictObject({
      profiles: z.array(Profile.refine(keepsThink, THINK_CONFLICT).transform(withThink)).min(1),
      default_profile: z.string(),
      mcp_servers: McpServers,
    })
    .superRefine(checkNames("profiles"))
    .superRefine(checkMcpServers("profiles"));
  // The first listener is the default profile, unless default_profile names another.
  const organismFile = z
    .strictObject({
      listeners: z.array(Listener.refine(keepsThink, THINK_CONFLICT).transform(withThink)).min(1),
      default_profile: z.string().optional(),
      mcp_servers: McpServers,
      ...ignoredKeys(NOT_APPLIED_AT_TOP),
    })
    .transform(({ listeners, default_profile, mcp_servers }) => ({
      profiles: listeners,
      default_profile: default_profile ?? listeners[0].name,
      mcp_servers,
    }))
    .superRefine(checkNames("listeners"))
    .superRefine(checkMcpServers("listeners"));
  return { profilesFile, organismFile };
}
type ParsedFile = z.infer<ReturnType<typeof configFile>["profilesFile"]>;
/** A profile as runs use it; a tool in its tool_config has settings (zod types a partial record's values optional). */
export type AgentProfile = Omit<ParsedFile["profiles"][number], "tool_config"> & {
  tool_config: Record<string, ToolSettings>;
};
type ConfigFile = Omit<ParsedFile, "profiles"> & {
  profiles: AgentProfile[];
  /** What the file says that Toolsmith does not apply (organism.yaml's other keys), by line: start-up logs it. */
  notApplied: string[];
};

/** Without a file: one profile, "default". */
const BUILT_IN = {
  profiles: [
    {
      name: "default",
      description:
        "Code tools, guarded web requests, a key-value store, an XML library and files in the conversation's workspace.",
      tools: DEFAULT_TOOLS,
      tool_config: {},
      approval: [],
    },
  ],
  default_profile: "default",
} satisfies z.input<ReturnType<typeof configFile>["profilesFile"]>;

export class ConfigFileError extends Error {}

/** Where an issue is in the file: a map's entry by its key (an unknown key's own), a list's item by itself. */
function nodeOf(document: Document, issue: z.core.$ZodIssue): { range?: [number, number, number] } | undefined {
  const at = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0]] : issue.path;
  const parent = document.getIn(at.slice(0, -1), true);
  const last = at.at(-1);
  if (isMap(parent)) return parent.items.find((pair) => isScalar(pair.key) && pair.key.value === last)?.key ?? parent;
  if (isSeq(parent) && typeof last === "number") return parent.items[last] ?? parent;
  return (parent ?? document.contents) as { range?: [number, number, number] } | undefined;
}

/**
 * Parse a config file's text: its profiles, or a ConfigFileError naming the file, the line, the value and the problem.
 * Tool names are checked against `toolNames` when given.
 */
export function parseProfiles(text: string, file: string, toolNames?: readonly string[]): ConfigFile {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  const at = (offset: number | undefined) => (offset === undefined ? "" : `, line ${lines.linePos(offset).line}`);
  if (document.errors.length > 0)
    throw new ConfigFileError(`${file}${at(document.errors[0].pos[0])}: ${document.errors[0].message}`);
  const content: unknown = document.toJS();
  const organism = typeof content === "object" && content !== null && "listeners" in content;
  const { profilesFile, organismFile } = configFile(toolNames);
  const parsed = (organism ? organismFile : profilesFile).safeParse(content, { reportInput: true });
  if (parsed.success) {
    const notApplied = organism ? notAppliedKeys(document, (path) => at(nodeOf(document, path)?.range?.[0])) : [];
    return { ...parsed.data, notApplied: notApplied.map((note) => `${file}${note}`) } as ConfigFile;
  }
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? ` (${issue.path.join(".")})` : "";
  const value = JSON.stringify(issue.input)?.slice(0, 100);
  const got = typeof issue.input !== "object" && value && !issue.message.includes(value) ? ` (got ${value})` : "";
  throw new ConfigFileError(`${file}${at(nodeOf(document, issue)?.range?.[0])}${where}: ${issue.message}${got}`);
}

/** The organism.yaml keys read but not applied, one line each: where, which, and why. */
function notAppliedKeys(document: Document, at: (path: z.core.$ZodIssue) => string): string[] {
  const note = (path: (string | number)[], map: unknown, reasons: Record<string, string>) => {
    if (!isMap(map)) return [];
    const keys = map.items
      .map((pair) => (isScalar(pair.key) ? String(pair.key.value) : ""))
      .filter((key) => key in reasons);
    const why = [...new Set(keys.map((key) => reasons[key]))];
    const where = path.length ? ` (${path.join(".")})` : "";
    const issue = { code: "custom", path: [...path, keys[0]], message: "", input: undefined } as z.core.$ZodIssue;
    return keys.length ? [`${at(issue)}${where}: ${keys.join(", ")} not applied: ${why.join("; ")}`] : [];
  };
  const listeners = document.get("listeners", true);
  return [
    ...note([], document.contents, NOT_APPLIED_AT_TOP),
    ...(isSeq(listeners)
      ? listeners.items.flatMap((listener, index) => note(["listeners", index], listener, NOT_APPLIED))
      : []),
  ];
}

/** The profiles, read once per process: by start-up, which checks the tools' names, or else by the first use. */
const loaded = processWide("profiles", () => ({ file: undefined as ConfigFile | undefined }));

function readProfiles(toolNames?: readonly string[]): ConfigFile {
  // A file chosen when the server runs, not part of the build: the ignore comment keeps Next's build from tracing
  // (and warning about) every file of the project as a possible target.
  const file = path.resolve(/* turbopackIgnore: true */ environment().TOOLSMITH_CONFIG);
  if (!fs.existsSync(file)) return { ...configFile().profilesFile.parse(BUILT_IN), notApplied: [] } as ConfigFile;
  return parseProfiles(fs.readFileSync(file, "utf8"), file, toolNames);
}

const profiles = () => (loaded.file ??= readProfiles());

/** Read and check the profiles now, against the tools there are: start-up calls this, so a bad file stops the server. */
export function loadProfiles(toolNames: readonly string[]): void {
  loaded.file = readProfiles(toolNames);
  for (const note of loaded.file.notApplied) console.warn(note);
}

/** The profiles file's MCP servers (`mcp_servers:`), with their secrets: for runs (lib/mcp-servers/), never an answer. */
export const fileMcpServers = (): McpServerEntry[] => profiles().mcp_servers;

export function listProfiles(): { profiles: AgentProfile[]; defaultProfile: string } {
  const { profiles: list, default_profile } = profiles();
  return { profiles: list, defaultProfile: default_profile };
}

/** What the composer offers: the profiles' names, and the one a new conversation gets. */
export function profileChoice(): { names: string[]; defaultProfile: string } {
  const { profiles: list, defaultProfile } = listProfiles();
  return { names: list.map((profile) => profile.name), defaultProfile };
}

/** The profile of that name, the default one for null; undefined for a name no profile has. */
export function findProfile(name: string | null): AgentProfile | undefined {
  const { profiles: list, default_profile } = profiles();
  return list.find((profile) => profile.name === (name ?? default_profile));
}
