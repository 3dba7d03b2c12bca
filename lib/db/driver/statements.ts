import type { Database, Statement } from "better-sqlite3";
import { LRUCache } from "lru-cache";
import type { SqlDriverAdapter } from "@prisma/driver-adapter-utils";

/** Distinct statements kept prepared: Prisma's SQL differs only with the length of an `IN (…)` list. */
const PREPARED_STATEMENTS = 500;

/**
 * Prisma's better-sqlite3 adapter with its statements prepared once each: it prepares every statement it sends, which
 * was 4 % of the server's CPU for a tool call through the API (docs/performance.md). The adapter binds arguments
 * to the statement it prepared (for good, in better-sqlite3), so the cached statement is handed out behind a view
 * that passes each call's arguments instead. An adapter whose connection is not a better-sqlite3 Database is left
 * as it is (tests/unit/sqlite-connection.test.ts says when an upgrade stops this from applying).
 */
export function reusingStatements(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const database = (adapter as unknown as { client?: Database }).client;
  if (typeof database?.prepare !== "function") return adapter;
  const prepare = database.prepare.bind(database);
  const prepared = new LRUCache<string, Statement>({ max: PREPARED_STATEMENTS });
  database.prepare = ((source: string) => {
    let statement = prepared.get(source);
    if (!statement) prepared.set(source, (statement = prepare(source)));
    return withArguments(statement);
  }) as Database["prepare"];
  return adapter;
}

/** A prepared statement's result columns, which the adapter asks for at every query: they are fixed when it is prepared. */
const columnsOf = new WeakMap<Statement, ReturnType<Statement["columns"]>>();

/** What the adapter uses of a statement, its `bind(args)` kept for the calls that follow it. */
function withArguments(statement: Statement) {
  let args: unknown[] = [];
  const view = {
    reader: statement.reader,
    bind: (bound: unknown[]) => ((args = bound), view),
    columns: () => {
      let columns = columnsOf.get(statement);
      if (!columns) columnsOf.set(statement, (columns = statement.columns()));
      return columns;
    },
    run: () => statement.run(args),
    raw: () => (statement.raw(true), { all: () => statement.all(args) }),
  };
  return view as unknown as Statement;
}
