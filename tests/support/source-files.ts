import fs from "node:fs";
import path from "node:path";

/** The project's own source files under `directory` (the generated Prisma clients left out), as posix paths. */
export function sourceFiles(directory: string, extension = /\.(ts|tsx|mjs)$/): string[] {
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const file = path.posix.join(directory, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sourceFiles(file, extension);
    return extension.test(entry.name) ? [file] : [];
  });
}
