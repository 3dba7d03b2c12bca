/**
 * Agent profiles, after the native tools document's organism.yaml: which tools a conversation's runs may use, and
 * each tool's settings. Read once from TOOLSMITH_CONFIG (default toolsmith.config.yaml in the working directory);
 * without a file, the built-in default applies. An invalid file stops start-up with the line and the problem.
 * Start-up gives the tools' names (lib/tools/names.ts), so that settings need not know the tools.
 */
import fs from "node:fs";
import path from "node:path";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from "yaml";
import { z } from "zod";
import { processWide } from "@/lib/platform/process-wide";
import { environment } from "./environment.mjs";

const ToolSettings = z.strictObject({
  allowed_domains: z
    .array(z.string().min(1))
    .optional()
    .describe("Hosts (and their subdomains) the tool may reach; absent: any public host."),
  blocked_domains: z
    .array(z.string().min(1))
    .optional()
    .describe("Hosts (and their subdomains) the tool may not reach."),
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

/** The file's schema: with `toolNames`, a profile may name only those tools; without, any (start-up checked them). */
function configFile(toolNames?: readonly string[]) {
  const ToolName = toolNames
    ? z.enum(toolNames as [string, ...string[]], { error: (issue) => notATool([issue.input], toolNames) })
    : z.string();
  const Profile = z.strictObject({
    name: z.string().regex(/^[\w-]{1,64}$/, "a name of letters, digits, _ and -"),
    description: z.string().max(500).optional(),
    tools: z.array(ToolName),
    think: z.boolean().default(true).describe("Offer think, the planning tool, listed or not; false leaves it out."),
    tool_config: z
      .partialRecord(ToolName, ToolSettings, {
        // zod reports an unknown key as unrecognized_keys, which its types for a record's issues leave out.
        error: (issue) => {
          const { code, keys } = issue as { code: string; keys?: string[] };
          return code === "unrecognized_keys" && keys && toolNames ? notATool(keys, toolNames) : undefined;
        },
      })
      .default({}),
    approval: z.array(ToolName).default([]),
  });

  /** A profile as runs use it: planning changes nothing, so its tools have think unless it says `think: false`. */
  const AgentProfile = Profile.refine((profile) => profile.think || !profile.tools.includes("think"), {
    path: ["think"],
    message: "think: false leaves out the think tool that tools lists; keep one of the two",
  }).transform(({ think, ...profile }) => ({
    ...profile,
    tools: think && !profile.tools.includes("think") ? ["think", ...profile.tools] : profile.tools,
  }));

  return z
    .strictObject({ profiles: z.array(AgentProfile).min(1), default_profile: z.string() })
    .superRefine((file, context) => {
      const names = file.profiles.map((profile) => profile.name);
      names.forEach((name, index) => {
        if (names.indexOf(name) !== index)
          context.addIssue({
            code: "custom",
            path: ["profiles", index, "name"],
            message: `the profile name "${name}" is used twice`,
          });
      });
      if (!names.includes(file.default_profile))
        context.addIssue({
          code: "custom",
          path: ["default_profile"],
          message: `no profile is named "${file.default_profile}"`,
        });
    });
}
type ParsedFile = z.infer<ReturnType<typeof configFile>>;
/** A profile as runs use it; a tool in its tool_config has settings (zod types a partial record's values optional). */
export type AgentProfile = Omit<ParsedFile["profiles"][number], "tool_config"> & {
  tool_config: Record<string, ToolSettings>;
};
type ConfigFile = Omit<ParsedFile, "profiles"> & { profiles: AgentProfile[] };

/** Without a file: think, the network tools behind the fetch guard, the code tools, the stores and the file tools. */
const BUILT_IN = {
  profiles: [
    {
      name: "default",
      description:
        "Code tools, guarded web requests, a key-value store, an XML library and files in the conversation's workspace.",
      tools: [
        "register_tool",
        "calculate",
        "run_code",
        "run_python",
        "fetch_url",
        "web_search",
        "key_value_get",
        "key_value_set",
        "key_value_delete",
        "librarian_store",
        "librarian_get",
        "librarian_query",
        "librarian_search",
        "read_file",
        "write_file",
        "list_dir",
      ],
      tool_config: {},
      approval: [],
    },
  ],
  default_profile: "default",
} satisfies z.input<ReturnType<typeof configFile>>;

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
  const parsed = configFile(toolNames).safeParse(document.toJS(), { reportInput: true });
  if (parsed.success) return parsed.data as ConfigFile;
  const issue = parsed.error.issues[0];
  const where = issue.path.length ? ` (${issue.path.join(".")})` : "";
  const value = JSON.stringify(issue.input)?.slice(0, 100);
  const got = typeof issue.input !== "object" && value && !issue.message.includes(value) ? ` (got ${value})` : "";
  throw new ConfigFileError(`${file}${at(nodeOf(document, issue)?.range?.[0])}${where}: ${issue.message}${got}`);
}

/** The profiles, read once per process: by start-up, which checks the tools' names, or else by the first use. */
const loaded = processWide("profiles", () => ({ file: undefined as ConfigFile | undefined }));

function readProfiles(toolNames?: readonly string[]): ConfigFile {
  // A file chosen when the server runs, not part of the build: the ignore comment keeps Next's build from tracing
  // (and warning about) every file of the project as a possible target.
  const file = path.resolve(/* turbopackIgnore: true */ environment().TOOLSMITH_CONFIG);
  if (!fs.existsSync(file)) return configFile().parse(BUILT_IN) as ConfigFile;
  return parseProfiles(fs.readFileSync(file, "utf8"), file, toolNames);
}

const profiles = () => (loaded.file ??= readProfiles());

/** Read and check the profiles now, against the tools there are: start-up calls this, so a bad file stops the server. */
export function loadProfiles(toolNames: readonly string[]): void {
  loaded.file = readProfiles(toolNames);
}

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
