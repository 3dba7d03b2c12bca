// The librarian's XML thread: parses documents (slimdom) and runs XPath / XQuery 3.1 (fontoxpath). Both are
// synchronous and a query can loop for ever, so they run here, where the parent's wall clock can terminate them.
// Nothing here reaches the file system or the network: fontoxpath has no fn:doc of its own and no I/O.
import { parentPort } from "node:worker_threads";
import fontoxpath from "fontoxpath";
import * as slimdom from "slimdom";

const { evaluateXPath, evaluateXPathToBoolean, parseScript } = fontoxpath;
const XQUERY = { language: evaluateXPath.XQUERY_3_1_LANGUAGE, logger: { trace() {} } };
const TOOLSMITH_NS = "https://toolsmith.dev/librarian";

// Parsed documents by "<id>:<version>", least recently used first, so that repeated queries over a collection do
// not parse it again.
const parsed = new Map();
const PARSED_CACHE_CHARS = 64 * 1024 * 1024;
let parsedChars = 0;

function parse(content) {
  if (/<!DOCTYPE/i.test(content))
    throw new Error("DOCTYPE declarations (DTDs and entities) are not accepted; store the document without one.");
  return slimdom.parseXmlDocument(content);
}

function cachedParse({ key, content }) {
  let entry = parsed.get(key);
  if (entry) parsed.delete(key);
  else {
    entry = { document: parse(content), chars: content.length };
    parsedChars += entry.chars;
  }
  parsed.set(key, entry);
  for (const [oldKey, old] of parsed) {
    if (parsedChars <= PARSED_CACHE_CHARS) break;
    parsed.delete(oldKey);
    parsedChars -= old.chars;
  }
  return entry.document;
}

/** The text that full-text search indexes: every text node, separated, so that <a>x</a><b>y</b> is "x y". */
function textOf(document) {
  const parts = [];
  const walk = (node) => {
    if (node.nodeType === 3 || node.nodeType === 4) parts.push(node.data);
    for (let child = node.firstChild; child; child = child.nextSibling) walk(child);
  };
  walk(document);
  return parts.join(" ").replace(/\s+/g, " ").trim();
}

const escapeAttribute = (value) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

function serialize(item) {
  if (item !== null && typeof item === "object" && typeof item.nodeType === "number") {
    return item.nodeType === 2
      ? `${item.name}="${escapeAttribute(item.value)}"`
      : slimdom.serializeToWellFormedString(item);
  }
  if (item instanceof Date) return item.toISOString();
  if (item !== null && typeof item === "object")
    return JSON.stringify(item, (_key, value) =>
      value !== null && typeof value === "object" && typeof value.nodeType === "number" ? serialize(value) : value,
    );
  return String(item);
}

// collection() and doc(path) see the documents the query was given (the collection the caller scoped it to).
let current = [];
fontoxpath.registerCustomXPathFunction(
  { namespaceURI: TOOLSMITH_NS, localName: "collection" },
  [],
  "document-node()*",
  () => current.map((entry) => entry.document),
);
fontoxpath.registerCustomXPathFunction(
  { namespaceURI: TOOLSMITH_NS, localName: "doc" },
  ["xs:string"],
  "document-node()?",
  (_context, path) => current.find((entry) => entry.path === path)?.document ?? null,
);
const functionNameResolver = ({ prefix, localName }, arity) => {
  if (prefix === "" && ((localName === "collection" && arity === 0) || (localName === "doc" && arity === 1)))
    return { namespaceURI: TOOLSMITH_NS, localName };
  return prefix === "" ? { namespaceURI: "http://www.w3.org/2005/xpath-functions", localName } : null;
};

/** Does the query name its documents itself (collection(), doc())? Then it runs once; otherwise once per document. */
function readsCollection(query) {
  const ast = parseScript(query, { language: XQUERY.language }, new slimdom.Document());
  return evaluateXPathToBoolean(
    'exists(descendant::Q{http://www.w3.org/2005/XQueryX}functionName[. = ("collection", "doc")])',
    ast,
  );
}

function query({ query: text, variables, documents, maxResults, outputChars }) {
  current = documents.map((entry) => ({ path: entry.path, document: cachedParse(entry) }));
  const options = { ...XQUERY, functionNameResolver };
  const contexts = readsCollection(text) ? [null] : current.map((entry) => entry.document);
  const results = [];
  let chars = 0;
  for (const context of contexts) {
    for (const item of evaluateXPath(text, context, null, variables, evaluateXPath.ALL_RESULTS_TYPE, options)) {
      const serialized = serialize(item);
      chars += serialized.length;
      if (results.length >= maxResults || chars > outputChars)
        return { results, truncated: true, documentsRead: current.length };
      results.push(serialized);
    }
  }
  return { results, truncated: false, documentsRead: current.length };
}

parentPort.on("message", (job) => {
  try {
    const answer = job.kind === "check" ? { text: textOf(parse(job.content)) } : query(job);
    parentPort.postMessage({ id: job.id, ok: true, ...answer });
  } catch (error) {
    parentPort.postMessage({
      id: job.id,
      ok: false,
      error: String(error instanceof Error ? error.message : error).slice(0, 2000),
    });
  } finally {
    current = [];
  }
});
parentPort.postMessage({ ready: true });
