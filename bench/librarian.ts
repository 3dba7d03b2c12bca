import { freshSqliteUrl, prepareDatabase } from "../tests/support/database";
import { ms, summarize, timed } from "./stats";

const DOCUMENTS = 1000;

/** A deterministic vocabulary and documents of ~300 words: some words common, most rare, as in prose. */
function corpus(): string[] {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const syllables = [
    "ka",
    "lo",
    "mi",
    "ner",
    "tas",
    "vo",
    "ri",
    "den",
    "sul",
    "pa",
    "quen",
    "tor",
    "bel",
    "ix",
    "ro",
    "mun",
  ];
  const vocabulary = Array.from({ length: 3000 }, () =>
    Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(
      "",
    ),
  );
  // Zipf-like: word i is picked with a weight of 1 / (i + 1).
  const pick = () =>
    vocabulary[Math.min(vocabulary.length - 1, Math.floor(Math.exp(random() * Math.log(vocabulary.length + 1)) - 1))];
  const words = (count: number) => Array.from({ length: count }, pick).join(" ");
  return Array.from(
    { length: DOCUMENTS },
    (_, index) =>
      `<report id="${index}"><title>${words(6)}</title>${Array.from({ length: 6 }, () => `<p level="${index % 3 ? "info" : "error"}">${words(50)}</p>`).join("")}</report>`,
  );
}

/** librarian_search over 1,000 stored documents (target < 50 ms), with the store and a collection-wide query beside it. */
export async function benchLibrarian(): Promise<void> {
  // A database of its own, migrated like the app's; the tools are imported only after it is named.
  process.env.DATABASE_URL = freshSqliteUrl();
  await prepareDatabase(process.env.DATABASE_URL);
  const { librarianQuery, librarianSearch, librarianStore } = await import("@/lib/tools/native/librarian");
  const { xmlEngine } = await import("@/lib/librarian/xml-engine");
  const context = {
    ownerId: "bench",
    conversationId: "bench",
    runId: "bench",
    signal: new AbortController().signal,
    tools: { get: () => undefined, add: () => {} },
    settings: {},
  };
  const call = async <Input>(
    tool: {
      parse(input: unknown): { ok: true; input: Input } | { ok: false; problems: string[] };
      execute(input: Input, c: never): Promise<{ ok: boolean }>;
    },
    args: unknown,
  ) => {
    const parsed = tool.parse(args);
    if (!parsed.ok) throw new Error(parsed.problems.join("; "));
    const result = await tool.execute(parsed.input, context as never);
    if (!result.ok) throw new Error(JSON.stringify(result));
    return result;
  };

  const documents = corpus();
  const stores: number[] = [];
  for (const [index, content] of documents.entries()) {
    stores.push(
      (
        await timed(() =>
          call(librarianStore, {
            collection: `/db/reports/${index % 10}`,
            document_name: `report-${index}.xml`,
            content,
          }),
        )
      )[0],
    );
  }
  const words = documents.flatMap((document) =>
    document
      .replace(/<[^>]+>/g, " ")
      .split(/\s+/)
      .filter(Boolean),
  );
  const queries = Array.from(
    { length: 200 },
    (_, index) => `${words[(index * 7919) % words.length]} ${words[(index * 104729) % words.length]}`,
  );
  for (const query of queries.slice(0, 20)) await call(librarianSearch, { query });
  const searches = [];
  for (const query of queries) searches.push((await timed(() => call(librarianSearch, { query, num_results: 10 })))[0]);
  const oneWord = [];
  for (const query of queries)
    oneWord.push((await timed(() => call(librarianSearch, { query: query.split(" ")[0], num_results: 10 })))[0]);

  const query = { query: 'count(collection()//p[@level = "error"])', collection: "/db/reports" };
  const [cold] = await timed(() => call(librarianQuery, query));
  const warm = [];
  for (let i = 0; i < 10; i++) warm.push((await timed(() => call(librarianQuery, query)))[0]);
  await xmlEngine.close();

  const [st, two, one, w] = [stores, searches, oneWord, warm].map(summarize);
  const bytes = documents.reduce((sum, document) => sum + document.length, 0);
  console.log(`\n## Librarian (${DOCUMENTS} documents, ${(bytes / 1024 / 1024).toFixed(1)} MB of XML, SQLite FTS5)`);
  console.log(
    `librarian_search, two words: median ${ms(two.median)}, p95 ${ms(two.p95)}; one word: median ${ms(one.median)}, p95 ${ms(one.p95)} (target < 50 ms)`,
  );
  console.log(`librarian_store: median ${ms(st.median)}, p95 ${ms(st.p95)} (parse on the XML thread, insert, index)`);
  console.log(
    `librarian_query over all ${DOCUMENTS} documents: ${ms(cold)} the first time (parsing them), then median ${ms(w.median)}`,
  );
}
