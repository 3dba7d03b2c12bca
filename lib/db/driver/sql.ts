// When raw SQL is allowed, and how it is written: docs/architecture.md, "The database and the raw-SQL rule".
import type {
  ArgType,
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
} from "@prisma/driver-adapter-utils";
import { DatabaseError } from "pg";
import { retry, type Backoff } from "@/lib/platform/retry";

/*
 * Statements straight to the driver adapter the Prisma client holds (its connection, pool and value conversions),
 * for the queries every run makes; the two hottest of PostgreSQL's live path go prepared (client.ts `livePrepared`).
 */

/** A parameter: dates are stored as each provider stores Prisma's DateTime, booleans as its Boolean. */
export type SqlValue = string | number | boolean | Date | null;

/** `factory`, whose adapters come wrapped by `wrap`: a wrapper changes how an adapter's connections are used. */
export class WrappedAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider: SqlMigrationAwareDriverAdapterFactory["provider"];
  readonly adapterName: string;

  constructor(
    private readonly factory: SqlMigrationAwareDriverAdapterFactory,
    private readonly wrap: (adapter: SqlDriverAdapter) => SqlDriverAdapter = (adapter) => adapter,
  ) {
    this.provider = factory.provider;
    this.adapterName = factory.adapterName;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return this.wrap(await this.factory.connect());
  }

  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.factory.connectToShadowDb();
  }
}

/**
 * Prisma's adapter factory, keeping the adapter it connects so that `sql` can use it. Prisma connects once, on its
 * first query (and again after a disconnect): the latest connection is the live one.
 */
export class SharedAdapterFactory extends WrappedAdapterFactory {
  connection?: SqlDriverAdapter;

  override async connect(): Promise<SqlDriverAdapter> {
    return (this.connection = await super.connect());
  }
}

/** Where statements go: the adapter (`sql` in client.ts), or an interactive transaction (`transactionSql`). */
export interface SqlExecutor {
  /** The rows of a query, as objects by column name. */
  rows<Row>(text: string, params?: SqlValue[]): Promise<Row[]>;
  /** Run a statement; resolves with the number of rows it changed. */
  execute(text: string, params?: SqlValue[]): Promise<number>;
}

export class Sql implements SqlExecutor {
  constructor(
    private readonly factory: SharedAdapterFactory,
    /** Connects the client (and so the factory) when no statement has run yet. */
    private readonly connectClient: () => Promise<void>,
  ) {}

  async rows<Row>(text: string, params: SqlValue[] = []): Promise<Row[]> {
    const adapter = await this.adapter();
    const { columnNames, rows } = await adapter.queryRaw(this.query(text, params));
    return rows.map((values) => Object.fromEntries(columnNames.map((name, index) => [name, values[index]])) as Row);
  }

  async execute(text: string, params: SqlValue[] = []): Promise<number> {
    const adapter = await this.adapter();
    return adapter.executeRaw(this.query(text, params));
  }

  /** The same statements inside one of the client's interactive transactions (Prisma's raw queries on `tx`). */
  within(tx: RawQueries): SqlExecutor {
    const placeholders = (text: string) => this.placeholders(text);
    return {
      rows: <Row>(text: string, params: SqlValue[] = []) => tx.$queryRawUnsafe<Row[]>(placeholders(text), ...params),
      execute: (text, params = []) => tx.$executeRawUnsafe(placeholders(text), ...params),
    };
  }

  private async adapter(): Promise<SqlDriverAdapter> {
    if (!this.factory.connection) await this.connectClient();
    return this.factory.connection!;
  }

  private query(text: string, params: SqlValue[]) {
    return { sql: this.placeholders(text), args: params, argTypes: params.map(argType) };
  }

  /** `?` placeholders as the provider numbers them. */
  private placeholders(text: string): string {
    let index = 0;
    return this.factory.provider === "postgres" ? text.replace(/\?/g, () => `$${++index}`) : text;
  }
}

/** What `within` needs of a transaction client. */
interface RawQueries {
  $queryRawUnsafe<T>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

function argType(value: SqlValue): ArgType {
  const scalarType =
    value instanceof Date
      ? "datetime"
      : typeof value === "boolean"
        ? "boolean"
        : typeof value === "number"
          ? Number.isInteger(value)
            ? "int"
            : "float"
          : typeof value === "string"
            ? "string"
            : "unknown";
  return { scalarType, arity: "scalar" };
}

/** A multi-row INSERT: `rows` rows of `columns`, in the order given, as `?` placeholders. */
export function insertSql(table: string, columns: readonly string[], rows: number): string {
  const row = `(${columns.map(() => "?").join(", ")})`;
  return `INSERT INTO "${table}" (${columns.map((column) => `"${column}"`).join(", ")}) VALUES ${Array.from({ length: rows }, () => row).join(", ")}`;
}

/**
 * A COMMIT or ROLLBACK: how Prisma ends an interactive transaction, before it calls the adapter's commit() or
 * rollback(). Not a ROLLBACK TO SAVEPOINT, which leaves the transaction open.
 */
export function endsTransaction(query: SqlQuery): boolean {
  return /^\s*(COMMIT|ROLLBACK)\s*;?\s*$/i.test(query.sql);
}

/**
 * A statement refused by a unique index: the adapters report SQLite's and PostgreSQL's codes as one kind; pg, for a
 * prepared statement (client.ts `livePrepared`), gives PostgreSQL's own code; Prisma's client, its P2002.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === "P2002") return true;
  if (error.name === "DriverAdapterError")
    return (error.cause as { kind?: string } | undefined)?.kind === "UniqueConstraintViolation";
  return (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/** PostgreSQL's SQLSTATE for unique_violation. */
const UNIQUE_VIOLATION = "23505";

/**
 * The database's own code for an error that is its answer to a statement (a SQLSTATE, or SQLite's code), as the
 * adapters keep it (`originalCode`) and pg and better-sqlite3 give it (`code`); undefined for an error that is not
 * the database's answer: the system's (ECONNREFUSED, EPIPE …), a timeout.
 */
export function answerCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code =
    error.name === "DriverAdapterError"
      ? (error.cause as { originalCode?: unknown } | undefined)?.originalCode
      : (error as { code?: unknown }).code;
  if (typeof code !== "string") return undefined;
  return error.name === "DriverAdapterError" || error instanceof DatabaseError || code.startsWith("SQLITE_")
    ? code
    : undefined;
}

/**
 * The database did not take the statement: it was not reached (refused, reset, silent), or cannot take work now
 * (starting up, shutting down, out of connections: SQLSTATE classes 08, 53 and 57; SQLite's lock held). Sending it
 * again may work, unlike a statement the database refused (a constraint, a trigger, a type).
 */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = answerCode(error);
  if (code === undefined) return true;
  return code.startsWith("SQLITE_") ? code.startsWith("SQLITE_BUSY") : /^(08|53|57)/.test(code);
}

/** A statement failed because the database cannot be reached, and there is time left (`performance.now()`) to wait for it. */
export const waitsForDatabase = (error: unknown, deadline: number): boolean =>
  isUnavailable(error) && performance.now() < deadline;

/** The wait before a statement is sent again to a database that could not be reached: 100 ms, doubling, at most a second. */
export const UNREACHABLE_BACKOFF: Backoff = { initialMs: 100, factor: 2, maxMs: 1_000 };

/**
 * `store`, done again while the database cannot be reached (`isUnavailable`: a restart, a partition) until `deadline`
 * (`performance.now()`; an attempt begun before it may take the statement timeout); an error the database answered
 * with fails at once. `store` must be safe to do twice: an attempt whose answer never came may have been stored.
 */
export const storeWhileUnreachable = <T>(store: () => Promise<T>, deadline: number): Promise<T> =>
  retry(store, { backoff: UNREACHABLE_BACKOFF, retryable: isUnavailable, deadline });

/** Column values as the adapters return them: DateTime as ISO text, integers as numbers or (SQLite) text, booleans as 0/1 on SQLite. */
export const toDate = (value: unknown): Date => new Date(value as string);
export const toOptionalDate = (value: unknown): Date | null =>
  value === null || value === undefined ? null : toDate(value);
export const toInt = (value: unknown): number => Number(value);
export const toBoolean = (value: unknown): boolean => value === true || Number(value) === 1;
