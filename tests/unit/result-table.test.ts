import { describe, expect, it } from "vitest";
import { cellText, MAX_COLUMNS, MAX_ROWS, tableOf } from "@/lib/trace/table";

const CITIES = [
  { city: "Oslo", temp: 3 },
  { city: "Rome", temp: 14 },
  { city: "Lima", temp: 19 },
];
const CITY_ROWS = [
  ["Oslo", 3],
  ["Rome", 14],
  ["Lima", 19],
];

describe("tableOf: a list of records", () => {
  it("is a table: the first record's keys, in its order, head the columns", () => {
    expect(tableOf(CITIES)).toEqual({ columns: ["city", "temp"], rows: CITY_ROWS });
  });

  it("takes each record's cells by key, whatever order its keys are in", () => {
    expect(
      tableOf([
        { a: 1, b: 2 },
        { b: 4, a: 3 },
      ]),
    ).toEqual({
      columns: ["a", "b"],
      rows: [
        [1, 2],
        [3, 4],
      ],
    });
  });

  it("is a table of one record, and keeps nested values and nulls as cells", () => {
    expect(tableOf([{ name: "x", tags: ["a"], owner: null }])).toEqual({
      columns: ["name", "tags", "owner"],
      rows: [["x", ["a"], null]],
    });
  });

  it("is not a table when the key sets differ, by a key missing, added or renamed", () => {
    expect(tableOf([{ a: 1, b: 2 }, { a: 1 }])).toBeUndefined();
    expect(tableOf([{ a: 1 }, { a: 1, b: 2 }])).toBeUndefined();
    expect(tableOf([{ a: 1 }, { b: 1 }])).toBeUndefined();
  });

  it("is not a table of records without keys, nor of records beside other values", () => {
    expect(tableOf([{}, {}])).toBeUndefined();
    expect(tableOf([{ a: 1 }, [1]])).toBeUndefined();
    expect(tableOf([{ a: 1 }, null])).toBeUndefined();
    expect(tableOf([new Date(0)])).toBeUndefined();
  });
});

describe("tableOf: a list of rows", () => {
  it("numbers the columns of rows without a header", () => {
    expect(tableOf(CITY_ROWS)).toEqual({ columns: ["1", "2"], rows: CITY_ROWS });
    expect(tableOf([[true]])).toEqual({ columns: ["1"], rows: [[true]] });
  });

  it("takes a first row of strings as the header when a later row holds a cell that is not a string", () => {
    expect(tableOf([["city", "temp"], ...CITY_ROWS])).toEqual({ columns: ["city", "temp"], rows: CITY_ROWS });
    expect(
      tableOf([
        ["name", "nickname"],
        ["Ann", null],
      ]),
    ).toEqual({
      columns: ["name", "nickname"],
      rows: [["Ann", null]],
    });
  });

  it("keeps a first row as data when every row is strings, or when it is the only row", () => {
    const words = [
      ["a", "b"],
      ["c", "d"],
    ];
    expect(tableOf(words)).toEqual({ columns: ["1", "2"], rows: words });
    expect(tableOf([["city", "temp"]])).toEqual({ columns: ["1", "2"], rows: [["city", "temp"]] });
  });

  it("is not a table of rows of different lengths, of empty rows or of rows with nested values", () => {
    expect(tableOf([[1, 2], [3]])).toBeUndefined();
    expect(tableOf([[], []])).toBeUndefined();
    expect(tableOf([[1, [2]]])).toBeUndefined();
    expect(tableOf([[1, { a: 2 }]])).toBeUndefined();
  });
});

describe("tableOf: pandas' to_dict('split')", () => {
  it("is a table of its columns and data, without the default index", () => {
    expect(tableOf({ columns: ["city", "temp"], data: CITY_ROWS })).toEqual({
      columns: ["city", "temp"],
      rows: CITY_ROWS,
    });
    expect(tableOf({ index: [0, 1, 2], columns: ["city", "temp"], data: CITY_ROWS })).toEqual({
      columns: ["city", "temp"],
      rows: CITY_ROWS,
    });
  });

  it("shows an index of its own as a first column", () => {
    expect(tableOf({ index: ["mon", "tue"], columns: ["temp"], data: [[3], [5]] })).toEqual({
      columns: ["index", "temp"],
      rows: [
        ["mon", 3],
        ["tue", 5],
      ],
    });
  });

  it("names numbered columns as text", () => {
    expect(tableOf({ columns: [0, 1], data: [["a", "b"]] })).toEqual({ columns: ["0", "1"], rows: [["a", "b"]] });
  });

  it("is not a table when the data does not fit the columns or the index, is empty, or more keys come with it", () => {
    expect(tableOf({ columns: ["a", "b"], data: [[1]] })).toBeUndefined();
    expect(tableOf({ columns: ["a"], data: [[1]], index: ["x", "y"] })).toBeUndefined();
    expect(tableOf({ columns: ["a"], data: [] })).toBeUndefined();
    expect(tableOf({ columns: [], data: [[]] })).toBeUndefined();
    expect(tableOf({ columns: [["a", "b"]], data: [[1]] })).toBeUndefined();
    expect(tableOf({ columns: ["a"], data: [[1]], name: "t" })).toBeUndefined();
  });
});

describe("tableOf: a table under a single key", () => {
  it("is the table it wraps, and says under which key", () => {
    expect(tableOf({ rows: CITIES })).toEqual({ columns: ["city", "temp"], rows: CITY_ROWS, under: "rows" });
    expect(tableOf({ records: CITIES })?.under).toBe("records");
    expect(tableOf({ frame: { columns: ["city", "temp"], data: CITY_ROWS } })?.columns).toEqual(["city", "temp"]);
  });

  it("is not a table beside other keys, nor two wrappings deep", () => {
    expect(tableOf({ rows: CITIES, count: 3 })).toBeUndefined();
    expect(tableOf({ result: { rows: CITIES } })).toBeUndefined();
  });
});

describe("tableOf: what is not a table", () => {
  it("is undefined for an empty list, a list of scalars, a record, a scalar or nothing", () => {
    for (const value of [[], [1, 2, 3], ["a", "b"], [null], { city: "Oslo", temp: 3 }, "text", 42, null, undefined]) {
      expect(tableOf(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});

describe("tableOf: the caps", () => {
  it(`renders ${MAX_ROWS} rows at most, and counts the rest`, () => {
    const many = Array.from({ length: MAX_ROWS + 57 }, (_, index) => ({ index }));
    const table = tableOf(many)!;
    expect(table.rows).toHaveLength(MAX_ROWS);
    expect(table.rows.at(-1)).toEqual([MAX_ROWS - 1]);
    expect(table.truncatedRows).toBe(57);
    expect(table.truncatedColumns).toBeUndefined();
    expect(tableOf(many.slice(0, MAX_ROWS))!.truncatedRows).toBeUndefined();
  });

  it(`renders ${MAX_COLUMNS} columns at most, in every row, and counts the rest`, () => {
    const wide = Object.fromEntries(Array.from({ length: MAX_COLUMNS + 12 }, (_, index) => [`c${index}`, index]));
    const table = tableOf([wide, wide])!;
    expect(table.columns).toHaveLength(MAX_COLUMNS);
    expect(table.columns.at(-1)).toBe(`c${MAX_COLUMNS - 1}`);
    expect(table.rows.every((row) => row.length === MAX_COLUMNS)).toBe(true);
    expect(table.truncatedColumns).toBe(12);
    expect(table.truncatedRows).toBeUndefined();
  });
});

describe("cellText", () => {
  it("shows strings as they are, null as an em dash, numbers and booleans as text, nested values as compact JSON", () => {
    expect(cellText("Oslo")).toBe("Oslo");
    expect(cellText("")).toBe("");
    expect(cellText(null)).toBe("—");
    expect(cellText(undefined)).toBe("—");
    expect(cellText(3.5)).toBe("3.5");
    expect(cellText(0)).toBe("0");
    expect(cellText(true)).toBe("true");
    expect(cellText(false)).toBe("false");
    expect(cellText({ a: [1, 2], b: null })).toBe('{"a":[1,2],"b":null}');
    expect(cellText(["x", 1])).toBe('["x",1]');
  });
});
