// The list of scripts/debian-packages.txt, read the same way by `npm run setup` and by the Python pool (which names
// the packages when they are missing). Plain ESM without dependencies: setup runs before `npm install`.

/**
 * The packages of `groups` in the list's text: one a line, `#` starts a comment, `[group]` starts a group (before
 * any, `runtime`). A line that is no package name throws.
 * @param {string} text
 * @param {string[]} groups
 * @returns {string[]}
 */
export function debianPackages(text, groups) {
  const packages = [];
  let group = "runtime";
  for (const line of text.split("\n")) {
    const entry = line.replace(/#.*/, "").trim();
    const header = /^\[(.+)\]$/.exec(entry);
    if (header) group = header[1];
    else if (entry && !/^[a-z0-9][a-z0-9+.-]+$/.test(entry))
      throw new Error(`debian-packages.txt: "${entry}" is no package name.`);
    else if (entry && groups.includes(group)) packages.push(entry);
  }
  return packages;
}
