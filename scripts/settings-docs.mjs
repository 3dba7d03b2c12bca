// .env.example and the configuration table of docs/configuration.md, generated from the settings' schema
// (lib/settings/environment.mjs): `node scripts/settings-docs.mjs` rewrites both, and tests/unit/settings.test.ts
// fails while either differs from what this makes. The table goes between its two markers, wherever they are.
import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { sections } from "../lib/settings/environment.mjs";

const GENERATED = "generated from lib/settings/environment.mjs by `node scripts/settings-docs.mjs`";
const TABLE_START = `<!-- The table is ${GENERATED}. -->`;
const TABLE_END = "<!-- End of the generated table. -->";
const WIDTH = 120;
/** The file whose markers hold the table. */
export const CONFIGURATION_DOC = "docs/configuration.md";

/** @typedef {{ name: string, description: string, shown: string, value: string }} Documented */

/**
 * Each variable as the docs show it: its meaning, its default in words (`shown`, Markdown), and the value an env
 * file would give it (`value`, empty when the default is worked out when the app runs).
 * @param {z.ZodType} variable
 * @param {string} name
 * @returns {Documented}
 */
function documented(variable, name) {
  const { description = "", defaultText } = /** @type {{ description?: string, defaultText?: string }} */ (
    variable.meta() ?? {}
  );
  const value = defaultText === undefined && variable instanceof z.ZodPrefault ? String(variable.def.defaultValue) : "";
  return { name, description, shown: defaultText ?? (value && `\`${value}\``), value };
}

const documentedSections = Object.entries(sections).map(([title, variables]) => ({
  title,
  variables: Object.entries(variables).map(([name, variable]) => documented(variable, name)),
}));

/** Comment lines of at most WIDTH characters. */
function comment(text) {
  const lines = [];
  let line = "#";
  for (const word of text.split(" ")) {
    if (line.length > 1 && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

/** The text of .env.example: every variable, commented out, with its default where it has one. */
export function envExample() {
  const plain = (/** @type {string} */ markdown) => markdown.replaceAll("`", "");
  return [
    `# Every setting, ${GENERATED}.`,
    "# All are optional; an empty value means unset. Uncomment and set what you need, e.g. OPENAI_API_KEY.",
    ...documentedSections.flatMap(({ title, variables }) => [
      "",
      `# === ${title} ===`,
      ...variables.flatMap(({ name, description, shown, value }) => [
        "",
        ...comment(plain(value || !shown ? description : `${description}. Default: ${shown}`)),
        `# ${name}=${value}`,
      ]),
    ]),
    "",
  ].join("\n");
}

/** The configuration table, between its markers. */
function table() {
  const rows = documentedSections.flatMap(({ variables }) =>
    variables.map(({ name, description, shown }) => `| \`${name}\` | ${shown}${shown && " "}| ${description} |`),
  );
  return [TABLE_START, "", "| variable | default | meaning |", "| --- | --- | --- |", ...rows, "", TABLE_END].join(
    "\n",
  );
}

/** The configuration doc with its table as the schema has it. */
export function withTable(/** @type {string} */ doc) {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start === -1 || end === -1) throw new Error(`${CONFIGURATION_DOC} has lost its table markers: ${TABLE_START}`);
  return doc.slice(0, start) + table() + doc.slice(end + TABLE_END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(".env.example", envExample());
  fs.writeFileSync(CONFIGURATION_DOC, withTable(fs.readFileSync(CONFIGURATION_DOC, "utf8")));
  console.log(`Wrote .env.example and the configuration table of ${CONFIGURATION_DOC}.`);
}
