import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { PREVIEW_CHARS, pdfFirstPageText, textPreview } from "@/lib/files/preview";
import { SNIFF_BYTES } from "@/lib/files/sniff";

const encode = (content: string) => new TextEncoder().encode(content);
const headOf = (content: string) => encode(content).subarray(0, SNIFF_BYTES);

describe("textPreview of CSV and TSV: column count, header and first rows as a Markdown table", () => {
  const sales = [
    "region,month,units,revenue",
    ...Array.from({ length: 10 }, (_, row) => `R${row},2026-0${row % 9},1${row},9.5`),
  ];

  it("shows the header and the first 5 rows, with the column count", () => {
    expect(textPreview("text/csv", encode(sales.join("\n")))).toBe(
      [
        "CSV, 4 columns; its header and first 5 rows:",
        "| region | month | units | revenue |",
        "| --- | --- | --- | --- |",
        "| R0 | 2026-00 | 10 | 9.5 |",
        "| R1 | 2026-01 | 11 | 9.5 |",
        "| R2 | 2026-02 | 12 | 9.5 |",
        "| R3 | 2026-03 | 13 | 9.5 |",
        "| R4 | 2026-04 | 14 | 9.5 |",
      ].join("\n"),
    );
  });

  it("reads quoted fields, and keeps the table a table: pipes escaped, line breaks flattened, long cells cut", () => {
    const csv = `name,notes\r\n"Smith, J.","line one\r\nline | two"\r\nlong,"${"x".repeat(500)}"\r\n`;
    const preview = textPreview("text/csv", encode(csv))!;
    expect(preview.split("\n")).toEqual([
      "CSV, 2 columns; its header and first 2 rows:",
      "| name | notes |",
      "| --- | --- |",
      "| Smith, J. | line one line \\| two |",
      `| long | ${"x".repeat(59)}… |`,
    ]);
  });

  it("tolerates ragged rows, stray quotes, blank lines and a BOM", () => {
    const csv = '\uFEFFa,b,c\n1,2\n\n3,4,5,6\n7,8 "inch",9\n';
    expect(textPreview("text/csv", encode(csv))!.split("\n")).toEqual([
      "CSV, 3 columns; its header and first 3 rows:",
      "| a | b | c |  |",
      "| --- | --- | --- | --- |",
      "| 1 | 2 |  |  |",
      "| 3 | 4 | 5 | 6 |",
      '| 7 | 8 "inch" | 9 |  |',
    ]);
  });

  it("reads TSV by tabs", () => {
    const tsv = 'id\tscreen\n1\t5" phone, small\n';
    expect(textPreview("text/tab-separated-values", encode(tsv))).toBe(
      'TSV, 2 columns; its header and first 1 row:\n| id | screen |\n| --- | --- |\n| 1 | 5" phone, small |',
    );
  });

  it("says when there is only a header", () => {
    expect(textPreview("text/csv", encode("a,b,c\n"))).toBe(
      "CSV, 3 columns; its header:\n| a | b | c |\n| --- | --- | --- |",
    );
  });

  it("drops the record the head's end cuts off, and a character cut in two", () => {
    const wide = `${"é".repeat(1500)}`;
    const csv = `h1,h2\nfirst,${wide}\nsecond,${wide}\nthird,${wide}\n`;
    const head = headOf(csv);
    expect(head.length).toBe(SNIFF_BYTES);
    const preview = textPreview("text/csv", head)!;
    expect(preview).toMatch(/^CSV, 2 columns; its header and first 2 rows:/);
    expect(preview).toContain("| first |");
    expect(preview).toContain("| second |");
    expect(preview).not.toContain("third");
    expect(preview).not.toContain("\uFFFD");
  });

  it("keeps the whole records before a quoted field that runs past the head", () => {
    const csv = `h1,h2\nshort,row\nlong,"${"line\n".repeat(3000)}"\nlast,row\n`;
    expect(textPreview("text/csv", headOf(csv))).toBe(
      "CSV, 2 columns; its header and first 1 row:\n| h1 | h2 |\n| --- | --- |\n| short | row |",
    );
  });

  it("stays within PREVIEW_CHARS for a wide table, showing its first columns", () => {
    const header = Array.from({ length: 40 }, (_, column) => `column_${column}_${"n".repeat(50)}`).join(",");
    const row = Array.from({ length: 40 }, () => "v".repeat(100)).join(",");
    const preview = textPreview("text/csv", headOf([header, row, row, row].join("\n")))!;
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(preview).toMatch(/^CSV, 40 columns; its header and first \d rows?, its first [1-9] columns:/);
  });

  it("shows fewer rows rather than passing PREVIEW_CHARS", () => {
    const row = Array.from({ length: 6 }, () => "w".repeat(70)).join(",");
    const preview = textPreview("text/csv", encode(["a,b,c,d,e,f", row, row, row, row, row].join("\n")))!;
    expect(preview.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(preview).toMatch(/^CSV, 6 columns; its header and first [1-3] rows?:/);
  });

  it("falls back to the first lines when nothing parses as a record (a header longer than the head)", () => {
    const preview = textPreview("text/csv", headOf(`${"h,".repeat(10_000)}\n1,2\n`))!;
    expect(preview.startsWith("h,h,h,")).toBe(true);
    expect(preview.endsWith("…")).toBe(true);
    expect([...preview].length).toBeLessThanOrEqual(PREVIEW_CHARS);
  });
});

describe("textPreview of other text and of binary types", () => {
  it("shows the first 20 lines", () => {
    const lines = Array.from({ length: 100 }, (_, line) => `line ${line + 1}`);
    expect(textPreview("text/plain", encode(lines.join("\n")))).toBe(lines.slice(0, 20).join("\n"));
    expect(textPreview("text/markdown", encode("# Title\r\n\r\nBody\r\n"))).toBe("# Title\n\nBody\n");
  });

  it("cuts at about PREVIEW_CHARS, and marks a cut", () => {
    const preview = textPreview("application/json", encode(`{"key": "${"😀".repeat(5000)}"}`))!;
    expect([...preview].length).toBe(PREVIEW_CHARS);
    expect(preview.endsWith("😀…")).toBe(true);
    expect(preview.isWellFormed()).toBe(true);
  });

  it("marks the last line of a cut head as going on", () => {
    const preview = textPreview("text/x-python", headOf(`${"x = 1\n".repeat(5)}${"y".repeat(20_000)}`))!;
    expect(preview).toMatch(/^x = 1\n(x = 1\n){4}y+…$/);
  });

  it("previews every text type: SVG and HTML as their source", () => {
    expect(textPreview("image/svg+xml", encode("<svg><script>alert(1)</script></svg>"))).toBe(
      "<svg><script>alert(1)</script></svg>",
    );
    expect(textPreview("text/html", encode("<!doctype html>\n<p>hi"))).toBe("<!doctype html>\n<p>hi");
    expect(textPreview("application/ld+json", encode('{"@context": "x"}'))).toBe('{"@context": "x"}');
  });

  it("has nothing to say of binary types and empty files", () => {
    for (const type of ["image/png", "application/pdf", "application/zip", "application/octet-stream"]) {
      expect(textPreview(type, encode("looks like text")), type).toBeUndefined();
    }
    expect(textPreview("text/plain", new Uint8Array())).toBeUndefined();
    expect(textPreview("text/csv", encode("\n\n  \n"))).toBeUndefined();
  });
});

/** A content stream as it is stored, with its filters. */
interface StoredStream {
  bytes: Uint8Array;
  filters: string;
}

/** A PDF with correct cross-references, one page per content; `compress` deflates the contents given as text. */
function pdfOf(pageContents: (string | StoredStream)[], { compress = false } = {}): Uint8Array {
  const kids = pageContents.map((_, page) => `${3 + page * 2} 0 R`).join(" ");
  const fontObject = 3 + pageContents.length * 2;
  const objects: (string | Uint8Array)[][] = [
    ["<< /Type /Catalog /Pages 2 0 R >>"],
    [`<< /Type /Pages /Kids [${kids}] /Count ${pageContents.length} >>`],
  ];
  pageContents.forEach((content, page) => {
    objects.push([
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + page * 2} 0 R ` +
        `/Resources << /Font << /F1 ${fontObject} 0 R >> >> >>`,
    ]);
    const stream: StoredStream =
      typeof content !== "string"
        ? content
        : compress
          ? { bytes: deflateSync(content), filters: "/FlateDecode" }
          : { bytes: encode(content), filters: "" };
    const filter = stream.filters ? ` /Filter ${stream.filters}` : "";
    objects.push([`<< /Length ${stream.bytes.length}${filter} >>\nstream\n`, stream.bytes, "\nendstream"]);
  });
  objects.push(["<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]);

  const parts: Uint8Array[] = [encode("%PDF-1.7\n")];
  let length = parts[0].length;
  const add = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? encode(part) : part;
    parts.push(bytes);
    length += bytes.length;
  };
  const offsets = objects.map((pieces, index) => {
    const offset = length;
    for (const piece of [`${index + 1} 0 obj\n`, ...pieces, "\nendobj\n"]) add(piece);
    return offset;
  });
  const xref = length;
  add(`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`);
  for (const offset of offsets) add(`${String(offset).padStart(10, "0")} 00000 n \n`);
  add(`trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Uint8Array.from(Buffer.concat(parts));
}

const textAt = (y: number, line: string) => `BT /F1 12 Tf 72 ${y} Td (${line}) Tj ET\n`;

async function* chunksOf(bytes: Uint8Array, size: number) {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.slice(offset, offset + size);
}

describe("pdfFirstPageText", () => {
  const report = pdfOf([
    textAt(700, "Quarterly    report") + textAt(680, "  Revenue:\t 1,200  EUR"),
    textAt(700, "Page two"),
  ]);

  it("reads the first page's text, whitespace normalised, and not the second page's", async () => {
    expect(await pdfFirstPageText(report)).toBe("Quarterly report\nRevenue: 1,200 EUR");
  });

  it("reads the bytes from a stream of chunks, as the store gives them", async () => {
    const pdf = pdfOf([textAt(700, "Streamed")], { compress: true });
    expect(await pdfFirstPageText(() => chunksOf(pdf, 7))).toBe("Streamed");
  });

  it("cuts the text at maxChars, PREVIEW_CHARS by default", async () => {
    const lines = Array.from({ length: 60 }, (_, line) =>
      textAt(780 - line * 12, `${line} ${"lorem ipsum ".repeat(8)}`),
    );
    const long = pdfOf([lines.join("")], { compress: true });
    const text = (await pdfFirstPageText(long))!;
    expect(text.length).toBe(PREVIEW_CHARS);
    expect(text.startsWith("0 lorem ipsum")).toBe(true);
    expect(text.endsWith("…")).toBe(true);
    expect(await pdfFirstPageText(long, { maxChars: 20 })).toBe("0 lorem ipsum lorem…");
  });

  it("is undefined for a page without text", async () => {
    expect(await pdfFirstPageText(pdfOf(["0 0 1 rg 72 72 200 200 re f\n"]))).toBeUndefined();
  });

  it("is undefined, quickly, for malformed and hostile PDFs", async () => {
    const started = Date.now();
    const hostile = [
      new Uint8Array(),
      encode("%PDF-1.7\nnothing else"),
      report.subarray(0, report.length / 2),
      encode("not a PDF at all"),
      Uint8Array.from({ length: 10_000 }, (_, index) => (index * 31) % 256),
      encode(new TextDecoder().decode(report).replace("/Type /Catalog /Pages 2 0 R", "/Type /Catalog /Pages 1 0 R")),
      encode(new TextDecoder().decode(report).replace("/Kids [3 0 R 5 0 R]", "/Kids [2 0 R]")),
      pdfOf([textAt(700, "ok")]).map((byte, index) => (index > 40 && index % 3 === 0 ? 0xff : byte)),
    ];
    for (const [index, pdf] of hostile.entries()) expect(await pdfFirstPageText(pdf), `PDF ${index}`).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it("gives up on a decompression bomb when its time is up, without taking the process down", async () => {
    // 64 MiB of spaces on the first page, deflated twice: a PDF of 1 KB that pdf.js takes over a second to read.
    const spaces = deflateSync(deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 1 }));
    const bomb = pdfOf([{ bytes: spaces, filters: "[/FlateDecode /FlateDecode]" }]);
    const started = Date.now();
    expect(await pdfFirstPageText(bomb, { timeoutMs: 400 })).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
  });

  // Tried up to three times: on a machine running other suites the page alone can pass 100 ms, while a timer that
  // counted the load (150 ms quiet, seconds loaded) would fail every try, each in a new thread.
  it(
    "counts its time from pdf.js being loaded: a cold thread on a busy machine is not the PDF's time",
    { retry: 2 },
    async () => {
      // Loading pdf.js into a new thread takes 150 ms on a quiet machine and seconds on a loaded one; the page, ~10 ms.
      expect(await pdfFirstPageText(report, { timeoutMs: 100 })).toBe("Quarterly report\nRevenue: 1,200 EUR");
    },
  );

  it("is undefined when its time is up or the signal aborts", async () => {
    expect(await pdfFirstPageText(report, { timeoutMs: 1 })).toBeUndefined();
    expect(await pdfFirstPageText(report, { signal: AbortSignal.abort() })).toBeUndefined();
    const controller = new AbortController();
    const answer = pdfFirstPageText(report, { signal: controller.signal });
    controller.abort();
    expect(await answer).toBeUndefined();
  });

  it("rejects only when reading the bytes fails: that is the store's error, not the PDF's", async () => {
    const failing = async function* () {
      yield encode("%PDF-1.7\n");
      throw new Error("the blob store is down");
    };
    await expect(pdfFirstPageText(failing)).rejects.toThrow("the blob store is down");
  });
});
