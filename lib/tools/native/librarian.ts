/**
 * The librarian tools of the native tools document (exist-db there): XML documents in one person's collections,
 * kept in the database, queried with XPath / XQuery 3.1 (fontoxpath, on its own thread with a wall clock) and
 * found by full-text search.
 */
import { z } from "zod";
import { config } from "@/lib/settings/config";
import { countDocuments, documentsIn, findDocument, searchDocuments, storeDocument } from "@/lib/db/queries/librarian";
import { collectionPath, collectionRefusal, documentName, documentPath, pathOf } from "@/lib/librarian/paths";
import { XmlError, xmlEngine } from "@/lib/librarian/xml-engine";
import { defineTool, refused } from "@/lib/tools/define-tool";
import type { ToolResult } from "@/lib/tools/types";

const { librarian: limits } = config;

/** A refused document or query, or one that overran its limits, is an observation the model can act on. */
async function observing(work: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof XmlError) return { ok: false, error: error.message };
    throw error;
  }
}

export const librarianStore = defineTool({
  name: "librarian_store",
  description: `Store an XML document (up to ${limits.maxDocumentBytes / 1024} KB, no DOCTYPE) in a collection such as /db/agents/greeter; a document of the same name is replaced. Returns its path.`,
  inputSchema: z.strictObject({
    collection: collectionPath.describe("The collection, e.g. /db/agents/greeter."),
    document_name: documentName.describe("The document's name, e.g. conversation-001.xml."),
    content: z.string().min(1).describe("The XML text."),
  }),
  execute: ({ collection, document_name: name, content }, context) =>
    observing(async () => {
      const refusal = collectionRefusal(collection, context.settings.allowed_paths);
      if (refusal) return refused(refusal);
      const bytes = Buffer.byteLength(content);
      if (bytes > limits.maxDocumentBytes)
        return {
          ok: false,
          error: `The document is ${bytes} bytes; the librarian keeps documents up to ${limits.maxDocumentBytes}.`,
        };
      const text = await xmlEngine.check(content, context.signal);
      if (
        !(await findDocument(context.ownerId, collection, name)) &&
        (await countDocuments(context.ownerId)) >= limits.maxDocumentsPerOwner
      ) {
        return {
          ok: false,
          error: `The library already holds ${limits.maxDocumentsPerOwner} documents; that is the limit.`,
        };
      }
      const { created } = await storeDocument({ ownerId: context.ownerId, collection, name, content, text });
      return { ok: true, output: { path: pathOf(collection, name), created, bytes } };
    }),
});

export const librarianGet = defineTool({
  name: "librarian_get",
  description: "Read a document stored with librarian_store, by its full path.",
  inputSchema: z.strictObject({
    path: documentPath.describe("The document's path, e.g. /db/agents/greeter/conversation-001.xml."),
  }),
  async execute({ path }, context) {
    const refusal = collectionRefusal(path.collection, context.settings.allowed_paths);
    if (refusal) return refused(refusal);
    const found = await findDocument(context.ownerId, path.collection, path.name);
    if (!found) return { ok: false, error: `There is no document ${pathOf(path.collection, path.name)}.` };
    return { ok: true, output: { content: found.content, updated_at: found.updatedAt.toISOString() } };
  },
});

const atomic = z.union([z.string().max(10_000), z.number(), z.boolean()]);

export const librarianQuery = defineTool({
  name: "librarian_query",
  description:
    'Run an XPath or XQuery 3.1 expression over stored documents. A path such as //message[@from="greeter"] runs against each document in turn; ' +
    'a query that calls collection() (all the documents in scope, e.g. count(collection()//message)) or doc("/db/…/x.xml") runs once. ' +
    "External variables are bound by name ($since). Returns the matching XML fragments and values as strings.",
  inputSchema: z.strictObject({
    query: z.string().min(1).max(limits.maxQueryChars).describe("The XPath / XQuery expression."),
    collection: collectionPath
      .optional()
      .describe("Only this collection and those under it; absent: every stored document."),
    variables: z
      .record(z.string(), z.union([atomic, z.array(atomic).max(1000)]))
      .superRefine((variables, context) => {
        const names = Object.keys(variables);
        if (names.length > 32) context.addIssue({ code: "custom", message: "at most 32 variables" });
        const bad = names.find((name) => !/^[A-Za-z_][\w.-]{0,63}$/.test(name));
        if (bad !== undefined)
          context.addIssue({
            code: "custom",
            message: `"${bad.slice(0, 64)}" is not a variable name: variable names are XML names, without the $`,
          });
      })
      .optional()
      .describe('External variables, e.g. {"since": "2024-01-15T00:00:00Z"} for $since.'),
  }),
  execute: ({ query, collection = null, variables = {} }, context) =>
    observing(async () => {
      const refusal = collectionRefusal(collection, context.settings.allowed_paths);
      if (refusal) return refused(refusal);
      const documents = await documentsIn(context.ownerId, collection, limits.maxQueryDocuments);
      if (documents.length > limits.maxQueryDocuments) {
        return {
          ok: false,
          error: `${collection ?? "The library"} holds more than ${limits.maxQueryDocuments} documents; name a smaller collection.`,
        };
      }
      const answer = await xmlEngine.query(
        {
          query,
          variables,
          documents: documents.map((document) => ({
            key: `${document.id}:${document.updatedAt.getTime()}`,
            path: pathOf(document.collection, document.name),
            content: document.content,
          })),
          maxResults: limits.maxResults,
          outputChars: config.toolOutputChars,
        },
        context.signal,
      );
      return {
        ok: true,
        output: { results: answer.results, truncated: answer.truncated, documents_read: answer.documentsRead },
      };
    }),
});

export const librarianSearch = defineTool({
  name: "librarian_search",
  description:
    'Full-text search over the stored documents\' text (words and "quoted phrases", all required; stemmed, so handling finds handle). Returns paths, scores (higher is better) and snippets with the matches in **.',
  inputSchema: z.strictObject({
    query: z
      .string()
      .max(1000)
      .regex(/[\p{L}\p{N}]/u, "give at least one word to search for")
      .describe("The search terms."),
    collection: collectionPath
      .optional()
      .describe("Only this collection and those under it; absent: every stored document."),
    num_results: z.number().int().min(1).max(50).default(10).describe("How many results, best first."),
  }),
  async execute({ query, collection = null, num_results }, context) {
    const refusal = collectionRefusal(collection, context.settings.allowed_paths);
    if (refusal) return refused(refusal);
    const hits = await searchDocuments(context.ownerId, query, collection, num_results);
    return {
      ok: true,
      output: {
        results: hits.map((hit) => ({
          path: pathOf(hit.collection, hit.name),
          score: hit.score,
          snippet: hit.snippet,
        })),
      },
    };
  },
});
