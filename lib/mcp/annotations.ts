import { parse, type AnyNode } from "acorn";
import { full } from "acorn-walk";
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import type { ToolSource } from "@/lib/sandbox/languages";

/**
 * What an MCP client is told about a stored tool, from its code: every one runs in the sandbox, which can change
 * nothing here (read-only); one whose code can reach the web (JavaScript's `fetch`; Python's requests or urllib,
 * or a URL given to pandas) reaches the open world.
 */
export function toolAnnotations({ language, code }: ToolSource): ToolAnnotations {
  const openWorld = language === "javascript" ? callsFetch(code) : PYTHON_WEB.test(code);
  return { readOnlyHint: true, openWorldHint: openWorld };
}

/** Python that names the libraries that reach the web, or a URL: the policy refuses any other way out. */
const PYTHON_WEB = /\b(requests|urllib)\b|\bhttps?:\/\//;

/**
 * Whether the code can reach the sandbox's `fetch`: the global used as a value (`fetch(url)`, `const get = fetch`),
 * or any property of that name (`this.fetch`, `this["fetch"]`: a plain function's `this` is the global object).
 * A comment, a string elsewhere, or a local binding's declaration do not count. Code that does not parse cannot be
 * stored, and is not treated as fetching.
 */
export function callsFetch(code: string): boolean {
  // The sandbox installs fetch only for code that mentions it (lib/sandbox/worker.mjs).
  if (!code.includes("fetch")) return false;
  let program;
  try {
    program = parse(code, { ecmaVersion: "latest", sourceType: "script", allowImportExportEverywhere: true });
  } catch {
    return false;
  }
  let found = false;
  // `full` says how a node is used: "Identifier" in an expression, "VariablePattern" where a binding is declared.
  full(program, (node, _state, type) => {
    if (type === "Identifier" || node.type === "MemberExpression") {
      const named = node.type === "MemberExpression" ? node.property : node;
      if (nameOf(named) === "fetch") found = true;
    }
  });
  return found;
}

const nameOf = (node: AnyNode) =>
  node.type === "Identifier" || node.type === "PrivateIdentifier"
    ? node.name
    : node.type === "Literal"
      ? node.value
      : undefined;
