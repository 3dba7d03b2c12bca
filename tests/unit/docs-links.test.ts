import fs from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { toString } from "mdast-util-to-string";
import { gfm } from "micromark-extension-gfm";
import { describe, expect, it } from "vitest";

/*
 * Every relative link of README.md and docs/**\/*.md leads somewhere: to a file or folder of the repository and,
 * with a #fragment, to a heading of that Markdown file, by GitHub's anchors (github-slugger: lower case,
 * punctuation dropped, spaces as hyphens, a repeated heading suffixed -1, -2). Links with a scheme (https:,
 * mailto:) are not followed.
 */

/** The part of an mdast node this test reads. */
interface MarkdownNode {
  type: string;
  url?: string;
  children?: MarkdownNode[];
  position?: { start: { line: number } };
}

function parse(markdown: string): MarkdownNode {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MarkdownNode;
}

function* nodes(node: MarkdownNode): Generator<MarkdownNode> {
  yield node;
  for (const child of node.children ?? []) yield* nodes(child);
}

/** The anchors GitHub gives the headings of a Markdown text, in order. */
export function anchors(markdown: string): string[] {
  const slugger = new GithubSlugger();
  return [...nodes(parse(markdown))]
    .filter((node) => node.type === "heading")
    .map((node) => slugger.slug(toString(node as Parameters<typeof toString>[0])));
}

/** Links, images and link definitions: their URL and line. */
export function links(markdown: string): { url: string; line: number }[] {
  return [...nodes(parse(markdown))]
    .filter((node) => ["link", "image", "definition"].includes(node.type) && node.url !== undefined)
    .map((node) => ({ url: node.url!, line: node.position?.start.line ?? 0 }));
}

const ROOT = process.cwd();
const markdownFiles = [
  "README.md",
  ...fs
    .readdirSync("docs", { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.posix.join("docs", file.split(path.sep).join("/")))
    .sort(),
];

const anchorsOf = new Map<string, Set<string>>();
function anchorsOfFile(file: string): Set<string> {
  if (!anchorsOf.has(file)) anchorsOf.set(file, new Set(anchors(fs.readFileSync(file, "utf8"))));
  return anchorsOf.get(file)!;
}

/** What is wrong with each relative link of a Markdown file of the repository, as "file:line url: why". */
export function brokenLinks(file: string, markdown = fs.readFileSync(file, "utf8")): string[] {
  const own = new Set(anchors(markdown));
  return links(markdown).flatMap(({ url, line }) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(url) || url.startsWith("//")) return [];
    const where = `${file}:${line} ${url}`;
    const hash = url.indexOf("#");
    const target = decodeURI(hash === -1 ? url : url.slice(0, hash));
    const fragment = hash === -1 ? undefined : decodeURIComponent(url.slice(hash + 1));
    if (target === "") return fragment === undefined || own.has(fragment) ? [] : [`${where}: no heading #${fragment}`];
    const resolved = path.posix.join(target.startsWith("/") ? "" : path.posix.dirname(file), target);
    if (resolved.startsWith("..") || path.isAbsolute(resolved)) return [`${where}: leads out of the repository`];
    if (!fs.existsSync(path.join(ROOT, resolved))) return [`${where}: ${resolved} does not exist`];
    if (fragment === undefined) return [];
    if (!resolved.endsWith(".md")) return [`${where}: a #fragment of a file that is not Markdown`];
    if (!anchorsOfFile(resolved).has(fragment)) return [`${where}: ${resolved} has no heading #${fragment}`];
    return [];
  });
}

describe("the docs' links", () => {
  it("find the Markdown files: the README and docs/", () => {
    expect(markdownFiles).toContain("README.md");
    expect(markdownFiles).toContain("docs/configuration.md");
    expect(markdownFiles).toContain("docs/architecture.md");
  });

  it("anchor headings as GitHub does", () => {
    const markdown = [
      "# Use the library from other agents (MCP)",
      "## The Python sandbox's threat model",
      "## In Python, and the check of `uses`",
      "## Files",
      "## Files",
      "### A run's *timeline*",
    ].join("\n\n");
    expect(anchors(markdown)).toEqual([
      "use-the-library-from-other-agents-mcp",
      "the-python-sandboxs-threat-model",
      "in-python-and-the-check-of-uses",
      "files",
      "files-1",
      "a-runs-timeline",
    ]);
  });

  it("report a missing file, a missing heading and a fragment of a file that is not Markdown", () => {
    const markdown = [
      "[ok](architecture.md#the-layout), [here](#files), [image](images/chat.png), [web](https://example.com/x.md)",
      "[gone](nowhere.md), [no heading](architecture.md#no-such-heading), [code](../package.json#L1), [up](#file)",
      "",
      "## Files",
    ].join("\n");
    expect(brokenLinks("docs/example.md", markdown)).toEqual([
      "docs/example.md:2 nowhere.md: docs/nowhere.md does not exist",
      "docs/example.md:2 architecture.md#no-such-heading: docs/architecture.md has no heading #no-such-heading",
      "docs/example.md:2 ../package.json#L1: a #fragment of a file that is not Markdown",
      "docs/example.md:2 #file: no heading #file",
    ]);
  });

  it.each(markdownFiles)("of %s lead to files and headings that exist", (file) => {
    expect(brokenLinks(file)).toEqual([]);
  });
});
