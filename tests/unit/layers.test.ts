import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/source-files";

/*
 * The layers of lib/, lowest first (docs/architecture.md, "The layout"): a folder imports only from its own folder and
 * from lower levels, so that each part can be read, tested and replaced without what sits above it. Folders on one
 * level do not import each other.
 */
const LEVELS = [
  ["generated", "platform"],
  ["settings"],
  ["sandbox", "librarian"],
  ["contract"],
  ["db"],
  ["http", "events", "retrieval", "share", "mcp-client", "mcp-servers", "files", "secrets"],
  ["tools"],
  ["agent", "trace"],
  ["runs", "telemetry", "api", "seat"],
  ["review", "conversations", "audit", "mcp", "accounts"],
];

/** Inside a folder, parts that must not import each other, or only one way. */
const INNER_RULES: { from: string; not: string; why: string }[] = [
  { from: "lib/db/driver/", not: "lib/db/queries/", why: "connections know no table" },
  { from: "lib/tools/native/", not: "lib/tools/library/", why: "a native tool acts; the library is about tools" },
  { from: "lib/tools/library/", not: "lib/tools/native/", why: "the library holds written tools, not native ones" },
];

const levelOf = new Map(LEVELS.flatMap((folders, level) => folders.map((folder) => [folder, level] as const)));

/** Every import of a file in lib/ (types too: a type from above ties the layers as much as a value does). */
function libImports(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, "utf8"), true, true);
  return importedFiles.flatMap(({ fileName }) => {
    if (fileName.startsWith("@/lib/")) return [fileName.slice(2)];
    if (fileName.startsWith(".")) return [path.posix.join(path.posix.dirname(file), fileName)];
    return [];
  });
}

const files = sourceFiles("lib");
const folderOf = (file: string) => file.split("/")[1];

describe("the layers of lib/", () => {
  it("gives every folder a level", () => {
    expect([...new Set(files.map(folderOf))].filter((folder) => !levelOf.has(folder))).toEqual([]);
  });

  it("imports only downhill", () => {
    const uphill = files.flatMap((file) =>
      libImports(file)
        .filter((target) => {
          const [from, to] = [folderOf(file), folderOf(target)];
          return from !== to && levelOf.get(to)! >= levelOf.get(from)!;
        })
        .map((target) => `${file} → ${target}`),
    );
    expect(uphill).toEqual([]);
  });

  it("keeps the parts of a folder apart where they must be", () => {
    const crossings = INNER_RULES.flatMap(({ from, not, why }) =>
      files
        .filter((file) => file.startsWith(from))
        .flatMap((file) => libImports(file).filter((target) => target.startsWith(not)))
        .map((target) => `${target} (${why})`),
    );
    expect(crossings).toEqual([]);
  });

  it("queries the database only in lib/db/queries/", () => {
    const querying = files
      .filter((file) => !file.startsWith("lib/db/"))
      .filter((file) =>
        /import\s*\{[^}]*\b(db|sql|liveSql|livePrepared|transaction)\b[^}]*\}\s*from\s*"@\/lib\/db\/driver\/client"/.test(
          fs.readFileSync(file, "utf8"),
        ),
      );
    expect(querying).toEqual([]);
  });
});
