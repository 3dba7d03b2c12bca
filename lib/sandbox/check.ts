import { parse, type Node } from "acorn";
import { full } from "acorn-walk";
import { codePolicy, type Violation } from "./policy";

export type { Violation };

export type CheckResult = { ok: true } | { ok: false; violations: Violation[] };

export interface CheckOptions {
  /** Tools must define `run` (the default); a run_code snippet need not. */
  requireEntryPoint?: boolean;
  /** The tools the code says it calls: each `tools.call` must name one of them, as a literal. */
  uses?: readonly string[];
}

// acorn's estree types are loose; these are the node shapes the rules read.
interface Located {
  loc?: { start: { line: number; column: number } } | null;
}
type AnyNode = Node & Located & Record<string, unknown>;

/** Layer 1 of the sandbox: parse and walk the source, and list everything the policy refuses. */
export function checkCode(code: string, { requireEntryPoint = true, uses }: CheckOptions = {}): CheckResult {
  const violations: Violation[] = [];
  const report = (message: string, node?: Located) =>
    violations.push({
      message,
      line: node?.loc?.start.line ?? 1,
      column: (node?.loc?.start.column ?? 0) + 1,
    });

  if (Buffer.byteLength(code, "utf8") > codePolicy.maxCodeBytes) {
    report(`Code is larger than the ${codePolicy.maxCodeBytes / 1024} KB limit.`);
    return { ok: false, violations };
  }

  let program: AnyNode;
  try {
    program = parse(code, {
      ecmaVersion: "latest",
      sourceType: "script",
      // Parse import/export so that they are reported as policy violations rather than as syntax errors.
      allowImportExportEverywhere: true,
      locations: true,
    }) as unknown as AnyNode;
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    violations.push({
      message: `Syntax error: ${(error as Error).message.replace(/ \(\d+:\d+\)$/, "")}`,
      line: loc?.line ?? 1,
      column: (loc?.column ?? 0) + 1,
    });
    return { ok: false, violations };
  }

  const tools: ToolsUse = { calls: [], direct: new Set(), named: [] };
  full(program, (node) => {
    for (const message of rulesFor(node as AnyNode)) report(message, node as Located);
    noteToolsUse(node as AnyNode, tools);
  });
  if (uses) for (const [message, node] of usesViolations(tools, uses)) report(message, node);

  if (requireEntryPoint && !definesEntryPoint(program)) {
    report(`The code must define a top-level \`function ${codePolicy.entryPoint}(inputs)\` (it may be async).`);
  }

  violations.sort((a, b) => a.line - b.line || a.column - b.column);
  return violations.length === 0
    ? { ok: true }
    : { ok: false, violations: violations.slice(0, codePolicy.maxViolations) };
}

function rulesFor(node: AnyNode): string[] {
  switch (node.type) {
    case "ImportDeclaration":
    case "ExportNamedDeclaration":
    case "ExportDefaultDeclaration":
    case "ExportAllDeclaration":
      return ["`import` and `export` are not allowed: tools are self-contained scripts."];
    case "ImportExpression":
      return ["Dynamic `import()` is not allowed."];
    case "MetaProperty":
      return (node.meta as AnyNode).name === "import" ? ["`import.meta` is not allowed."] : [];
    case "WithStatement":
      return ["`with` statements are not allowed."];
    case "Identifier":
      return identifierRule(node.name as string);
    case "MemberExpression":
      return propertyRule(memberName(node));
    case "Property":
    case "MethodDefinition":
    case "PropertyDefinition":
      return propertyRule(keyName(node));
    case "ObjectPattern":
      // The walker does not visit a pattern's properties as nodes: `const { constructor: c } = x` is checked here.
      return (node.properties as AnyNode[]).flatMap((property) =>
        property.type === "Property" ? propertyRule(keyName(property)) : [],
      );
    case "Literal":
      return typeof node.value === "string" && forbiddenProperty(node.value)
        ? [`The string "${node.value}" is not allowed: it names a prototype or constructor internal.`]
        : [];
    case "TemplateElement": {
      const cooked = (node.value as { cooked?: string | null }).cooked;
      return cooked && forbiddenProperty(cooked) ? [`The string "${cooked}" is not allowed.`] : [];
    }
    case "AssignmentExpression":
    case "UpdateExpression":
      return writesProtected((node.left ?? node.argument) as AnyNode) ? [protectedWrite] : [];
    case "UnaryExpression":
      return node.operator === "delete" && writesProtected(node.argument as AnyNode) ? [protectedWrite] : [];
    case "CallExpression":
      return mutatesProtected(node) ? [protectedWrite] : [];
    default:
      return [];
  }
}

/** Where the code names `tools`: its direct calls `tools.call(...)`, and every `tools` identifier. */
interface ToolsUse {
  calls: AnyNode[];
  /** The `tools` of the direct calls. */
  direct: Set<AnyNode>;
  named: AnyNode[];
}

function noteToolsUse(node: AnyNode, tools: ToolsUse): void {
  if (node.type === "Identifier" && node.name === "tools") tools.named.push(node);
  if (node.type !== "CallExpression") return;
  const callee = node.callee as AnyNode;
  const object = callee.object as AnyNode | undefined;
  const named = callee.type === "MemberExpression" && !callee.computed && (callee.property as AnyNode).name === "call";
  if (named && object?.type === "Identifier" && object.name === "tools") {
    tools.calls.push(node);
    tools.direct.add(object);
  }
}

/**
 * With `uses` (the tools a tool says it calls): each tools.call names one of them, as a literal, and `tools` is used
 * no other way (an alias, `tools["call"]`, an argument, a shadowing name), which would hide what the code calls.
 */
function usesViolations(tools: ToolsUse, uses: readonly string[]): [string, AnyNode][] {
  const found: [string, AnyNode][] = [];
  for (const call of tools.calls) {
    const first = (call.arguments as AnyNode[])[0];
    const name = literalText(first);
    if (name === undefined) {
      const example = 'tools.call("word_count", { text })';
      found.push([`tools.call needs the tool's name as a string literal, listed in uses: ${example}.`, first ?? call]);
    } else if (!uses.includes(name)) {
      const quoted = JSON.stringify(name);
      found.push([`tools.call(${quoted}) names a tool not in uses: add ${quoted} to uses.`, first]);
    }
  }
  for (const node of tools.named) {
    if (tools.direct.has(node)) continue;
    const message =
      '`tools` may only be used as tools.call("name", input), called directly: aliasing it, passing it around or ' +
      "naming something else `tools` hides which tools the code calls.";
    found.push([message, node]);
  }
  return found;
}

/** A string literal's text: "name", 'name' or `name` without substitutions. */
function literalText(node: AnyNode | undefined): string | undefined {
  if (node?.type === "Literal" && typeof node.value === "string") return node.value;
  if (node?.type !== "TemplateLiteral" || (node.expressions as AnyNode[]).length > 0) return undefined;
  return ((node.quasis as AnyNode[])[0].value as { cooked?: string | null }).cooked ?? undefined;
}

const protectedWrite = "Writing to a `prototype` is not allowed.";

function identifierRule(name: string): string[] {
  if (codePolicy.forbiddenIdentifiers.has(name))
    return [`\`${name}\` is not allowed: tools cannot reach the host or compile code.`];
  if (name.startsWith(codePolicy.forbiddenPrefix))
    return [`Identifiers starting with \`${codePolicy.forbiddenPrefix}\` are not allowed (\`${name}\`).`];
  return [];
}

function propertyRule(name: string | undefined): string[] {
  return name !== undefined && forbiddenProperty(name) ? [`Property \`${name}\` is not allowed.`] : [];
}

function forbiddenProperty(name: string): boolean {
  return codePolicy.forbiddenProperties.has(name) || name.startsWith(codePolicy.forbiddenPrefix);
}

/** The statically known name of `a.b` or `a["b"]`. */
function memberName(node: AnyNode): string | undefined {
  const property = node.property as AnyNode;
  if (!node.computed && property.type === "Identifier") return property.name as string;
  if (property.type === "Literal" && typeof property.value === "string") return property.value;
  return undefined;
}

function keyName(node: AnyNode): string | undefined {
  const key = node.key as AnyNode;
  if (!node.computed && (key.type === "Identifier" || key.type === "PrivateIdentifier")) return key.name as string;
  if (key.type === "Literal") return String(key.value);
  return undefined;
}

/** True when the target is `...prototype` or `...prototype.x...`. */
function writesProtected(target: AnyNode | undefined): boolean {
  for (let node = target; node?.type === "MemberExpression"; node = node.object as AnyNode) {
    const name = memberName(node);
    if (name !== undefined && codePolicy.writeProtectedProperties.has(name)) return true;
  }
  return false;
}

/** Object.assign(X.prototype, ...), Object.defineProperty(X.prototype, ...) and the like. */
function mutatesProtected(node: AnyNode): boolean {
  const callee = node.callee as AnyNode;
  if (callee.type !== "MemberExpression") return false;
  const name = memberName(callee);
  if (name !== "assign" && name !== "defineProperty" && name !== "defineProperties") return false;
  const first = (node.arguments as AnyNode[])[0];
  return writesProtected(first);
}

function definesEntryPoint(program: AnyNode): boolean {
  const isEntry = (id: unknown) =>
    (id as AnyNode | null)?.type === "Identifier" && (id as AnyNode).name === codePolicy.entryPoint;
  return (program.body as AnyNode[]).some((statement) => {
    if (statement.type === "FunctionDeclaration") return isEntry(statement.id);
    if (statement.type !== "VariableDeclaration") return false;
    return (statement.declarations as AnyNode[]).some(
      (declarator) =>
        isEntry(declarator.id) &&
        ["FunctionExpression", "ArrowFunctionExpression"].includes((declarator.init as AnyNode | null)?.type ?? ""),
    );
  });
}
