/** A tool result that reads as a table: its columns and rows (cells as the result holds them), and what was left out. */
export interface ResultTable {
  columns: string[];
  rows: unknown[][];
  /** Rows past MAX_ROWS, left out of `rows`. */
  truncatedRows?: number;
  /** Columns past MAX_COLUMNS, left out of `columns` and of every row. */
  truncatedColumns?: number;
  /** The one key of the result the table was found under, as in `{ rows: [...] }`. */
  under?: string;
}

/** What a card renders at most; the JSON view keeps the rest. */
export const MAX_ROWS = 200;
export const MAX_COLUMNS = 30;

type Scalar = string | number | boolean | null;

/**
 * The table a result is, if it is one:
 * - a list of records (plain objects) that all have the same keys, at least one: columns in the first record's order
 *   (pandas' `to_dict("records")`);
 * - a list of rows, arrays of scalars all of one length, at least one: columns "1", "2", … unless the first row is
 *   all strings and a later row holds a cell that is not a string (a number, boolean or null), then it is the header;
 * - pandas' `to_dict("split")`, `{ columns, data }` with an optional `index`, shown as a first column "index" unless
 *   it is the default 0, 1, 2, …;
 * - an object with one key only, whose value is one of those (`{ rows: [...] }`, `{ records: [...] }`).
 * Not a table: an empty list, records with different keys, a list of scalars, rows of different lengths or with
 * nested values. A table wider or longer than the caps is cut to them, and says by how much.
 */
export function tableOf(value: unknown): ResultTable | undefined {
  const table = tableItself(value);
  if (table) return capped(table);
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const wrapped = tableItself(value[keys[0]]);
  return wrapped && { ...capped(wrapped), under: keys[0] };
}

/** A cell as text: strings as they are, null as an em dash, other scalars as JavaScript writes them, the rest as compact JSON. */
export function cellText(cell: unknown): string {
  if (typeof cell === "string") return cell;
  if (cell === null || cell === undefined) return "—";
  if (typeof cell === "object") return JSON.stringify(cell);
  return String(cell);
}

type Table = Pick<ResultTable, "columns" | "rows">;

function tableItself(value: unknown): Table | undefined {
  return recordsTable(value) ?? rowsTable(value) ?? splitTable(value);
}

function recordsTable(value: unknown): Table | undefined {
  if (!Array.isArray(value) || value.length === 0 || !value.every(isPlainObject)) return undefined;
  const columns = Object.keys(value[0]);
  if (columns.length === 0) return undefined;
  const sameKeys = (record: Record<string, unknown>) =>
    Object.keys(record).length === columns.length && columns.every((column) => Object.hasOwn(record, column));
  if (!value.every(sameKeys)) return undefined;
  return { columns, rows: value.map((record) => columns.map((column) => record[column])) };
}

function rowsTable(value: unknown): Table | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (!value.every((row): row is Scalar[] => Array.isArray(row) && row.every(isScalar))) return undefined;
  const width = value[0].length;
  if (width === 0 || !value.every((row) => row.length === width)) return undefined;
  const [first, ...rest] = value;
  if (first.every(isString) && rest.some((row) => !row.every(isString))) return { columns: first, rows: rest };
  return { columns: first.map((_, index) => String(index + 1)), rows: value };
}

function splitTable(value: unknown): Table | undefined {
  if (!isPlainObject(value) || !Object.keys(value).every((key) => ["columns", "data", "index"].includes(key))) {
    return undefined;
  }
  const { columns, data, index } = value;
  if (!Array.isArray(columns) || columns.length === 0) return undefined;
  if (!columns.every((column) => typeof column === "string" || typeof column === "number")) return undefined;
  if (!Array.isArray(data) || data.length === 0) return undefined;
  if (!data.every((row): row is unknown[] => Array.isArray(row) && row.length === columns.length)) return undefined;
  const names = columns.map(String);
  if (index === undefined || isDefaultIndex(index, data.length)) return { columns: names, rows: data };
  if (!Array.isArray(index) || index.length !== data.length) return undefined;
  return { columns: ["index", ...names], rows: data.map((row, position) => [index[position], ...row]) };
}

function isDefaultIndex(index: unknown, length: number): boolean {
  return Array.isArray(index) && index.length === length && index.every((label, position) => label === position);
}

function capped({ columns, rows }: Table): ResultTable {
  const table: ResultTable = { columns, rows };
  if (rows.length > MAX_ROWS) {
    table.rows = rows.slice(0, MAX_ROWS);
    table.truncatedRows = rows.length - MAX_ROWS;
  }
  if (columns.length > MAX_COLUMNS) {
    table.columns = columns.slice(0, MAX_COLUMNS);
    table.rows = table.rows.map((row) => row.slice(0, MAX_COLUMNS));
    table.truncatedColumns = columns.length - MAX_COLUMNS;
  }
  return table;
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}
