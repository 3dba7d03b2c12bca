import { describe, expect, it } from "vitest";
import { SNIFF_BYTES, shownInline, sniffMimeType } from "@/lib/files/sniff";

const text = (content: string) => new TextEncoder().encode(content);
const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === "string" ? [...Buffer.from(part, "latin1")] : part)));

// A real 1×1 PNG, and the first bytes of real JPEG, GIF, WebP, ZIP and gzip files.
const PNG = Uint8Array.from(
  Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
    "base64",
  ),
);
const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF", [0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01]);
const GIF = bytes("GIF89a", [0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00], ",");
const WEBP = bytes("RIFF", [0x24, 0x00, 0x00, 0x00], "WEBPVP8 ", [0x18, 0x00, 0x00, 0x00, 0x30, 0x01, 0x00, 0x9d]);
const ZIP = bytes("PK", [0x03, 0x04, 0x14, 0x00, 0x00, 0x00, 0x08, 0x00], [0, 0, 0, 0, 0, 0, 0, 0]);
const GZIP = bytes([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]);
const PDF = bytes("%PDF-1.7\n%", [0xe2, 0xe3, 0xcf, 0xd3], "\n1 0 obj\n<< /Type /Catalog >>\nendobj\n");

describe("sniffMimeType: the type from the bytes, never from the client", () => {
  it("knows binary formats by their signature, whatever the name says", async () => {
    expect(await sniffMimeType(PNG, "x.txt")).toBe("image/png");
    expect(await sniffMimeType(JPEG, "photo.html")).toBe("image/jpeg");
    expect(await sniffMimeType(GIF, "anim.svg")).toBe("image/gif");
    expect(await sniffMimeType(WEBP, "pic")).toBe("image/webp");
    expect(await sniffMimeType(PDF, "report.exe")).toBe("application/pdf");
    expect(await sniffMimeType(ZIP, "data.csv")).toBe("application/zip");
    expect(await sniffMimeType(GZIP, "notes.md")).toBe("application/gzip");
  });

  it("knows a PDF that is all text, as hand-written PDFs are", async () => {
    expect(await sniffMimeType(text("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n"), "a.txt")).toBe(
      "application/pdf",
    );
  });

  it("sees through HTML disguised as a PNG", async () => {
    const disguised = text("<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>");
    expect(await sniffMimeType(disguised, "photo.png")).toBe("text/html");
    // A file named only `.png`, its bytes HTML
    expect(await sniffMimeType(text("<html><script>alert(1)</script>"), ".png")).toBe("text/html");
  });

  it("finds HTML after a BOM, whitespace and comments, in any case, by the tags browsers sniff for", async () => {
    for (const content of [
      "\uFEFF  \r\n\t<html lang=en>",
      "<!doctype HTML>",
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN">',
      "<SCRIPT>alert(1)</SCRIPT>",
      "<script\nsrc=//evil.example/x.js></script>",
      "<iframe src=javascript:alert(1)>",
      "<body onload=alert(1)>",
      "<!-- a comment --> <b>bold</b>",
      "<p/>",
      `<!--${" ".repeat(SNIFF_BYTES)}`,
    ]) {
      expect(await sniffMimeType(text(content), "notes.txt"), JSON.stringify(content.slice(0, 40))).toBe("text/html");
    }
  });

  it("knows SVG, with its script, prolog, doctype, comments or namespace prefix, whatever its name", async () => {
    const svgs = [
      '<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>',
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- Generator: Adobe Illustrator -->\n<svg version="1.1">',
      '<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "svg11.dtd"><svg>',
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "<svg>">]><svg>&x;</svg>',
      '<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>',
      "<SVG>",
    ];
    for (const svg of svgs) expect(await sniffMimeType(text(svg), "cat.png"), svg).toBe("image/svg+xml");
  });

  it("tells XML from the SVG and XHTML it may be", async () => {
    expect(await sniffMimeType(text('<?xml version="1.0"?>\n<rss version="2.0">'), "feed.txt")).toBe("application/xml");
    expect(await sniffMimeType(text('<?xml version="1.0"?>\n<?xml-stylesheet href="a.xsl"?><catalog>'), "c")).toBe(
      "application/xml",
    );
    expect(await sniffMimeType(text('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">'), "x")).toBe(
      "text/html",
    );
    expect(await sniffMimeType(text("<note><to>Tove</to></note>"), "note.xml")).toBe("application/xml");
  });

  it("leaves a polyglot its binary type when its bytes are binary: a browser runs none of it", async () => {
    const pngWithHtml = Uint8Array.from([...PNG.subarray(0, 33), ...text("<html><script>alert(1)</script>")]);
    expect(await sniffMimeType(pngWithHtml, "x.html")).toBe("image/png");
    const pdfWithHtml = text("%PDF-1.4\n<html><script>alert(1)</script></html>");
    expect(await sniffMimeType(pdfWithHtml, "x.html")).toBe("application/pdf");
    // HTML first and binary after: no text, no signature, so a download
    const htmlWithBinary = Uint8Array.from([...text("<html><script>alert(1)</script>"), ...PNG]);
    expect(await sniffMimeType(htmlWithBinary, "x.png")).toBe("application/octet-stream");
  });

  it("calls an all-text 'GIF' (a GIF/JavaScript polyglot) text, so it is never served as script or image", async () => {
    const polyglot = text("GIF89a=1;alert(document.domain)//");
    expect(await sniffMimeType(polyglot, "avatar.gif")).toBe("text/plain");
    expect(await sniffMimeType(polyglot, "avatar.js")).toBe("text/javascript");
  });

  it("does not take text for a format with a short signature (BMP 'BM', MP3 'ID3', EXE 'MZ')", async () => {
    expect(await sniffMimeType(text("BMW,Audi,VW\n1,2,3\n"), "cars.csv")).toBe("text/csv");
    expect(await sniffMimeType(text("ID3,name\n1,a\n"), "ids.csv")).toBe("text/csv");
    expect(await sniffMimeType(text("MZ is where we start"), "notes")).toBe("text/plain");
    expect(await sniffMimeType(text("solid results this quarter"), "q3.md")).toBe("text/markdown");
  });

  it("names text by its extension among a few types, else text/plain", async () => {
    const types: Record<string, string> = {
      "sales.csv": "text/csv",
      "SALES.CSV": "text/csv",
      "table.tsv": "text/tab-separated-values",
      "README.md": "text/markdown",
      "data.json": "application/json",
      "page.html": "text/html",
      "page.htm": "text/html",
      "icon.svg": "image/svg+xml",
      "feed.xml": "application/xml",
      "app.js": "text/javascript",
      "app.mjs": "text/javascript",
      "main.py": "text/x-python",
      "notes.txt": "text/plain",
      "photo.png": "text/plain",
      Makefile: "text/plain",
      "../../x.csv": "text/csv",
      "x.html.": "text/html",
      "x.html\u0000.txt": "text/plain",
    };
    for (const [name, type] of Object.entries(types)) {
      expect(await sniffMimeType(text("just some words, nothing more\n"), name), name).toBe(type);
    }
  });

  it("does not call `<?php` or `<3` markup", async () => {
    expect(await sniffMimeType(text("<?php echo 1; ?>"), "index.php")).toBe("text/plain");
    expect(await sniffMimeType(text("<3 you"), "love.txt")).toBe("text/plain");
  });

  it("calls valid UTF-8 without NUL text, a character cut by the head's end included", async () => {
    const cut = Uint8Array.from([...text("a,b\n".repeat(SNIFF_BYTES / 4 - 1)), ...text("caf"), 0xc3]);
    expect(cut.length).toBe(SNIFF_BYTES);
    expect(await sniffMimeType(cut, "x.csv")).toBe("text/csv");
    expect(await sniffMimeType(Uint8Array.from([...text("日本語"), 0xe6, 0x97]), "jp.txt")).toBe("text/plain");
  });

  it("calls bytes that are neither text nor a known format application/octet-stream", async () => {
    expect(await sniffMimeType(text("hello\u0000world"), "x.txt")).toBe("application/octet-stream");
    expect(await sniffMimeType(bytes("caf", [0xc3, 0x28], "e"), "x.csv")).toBe("application/octet-stream");
    expect(await sniffMimeType(bytes("caf", [0xe9], " latin-1\n"), "x.csv")).toBe("application/octet-stream");
    expect(await sniffMimeType(bytes([0xc0, 0xaf]), "overlong.txt")).toBe("application/octet-stream");
    expect(await sniffMimeType(bytes([0xed, 0xa0, 0x80]), "surrogate.txt")).toBe("application/octet-stream");
    const noise = Uint8Array.from({ length: 4096 }, (_, index) => (index * 7919 + 13) % 256);
    expect(await sniffMimeType(noise, "x.png")).toBe("application/octet-stream");
  });

  it("reads only the first SNIFF_BYTES bytes", async () => {
    const long = Uint8Array.from([...text("a,b\n".repeat(SNIFF_BYTES / 4)), 0, 0, 0]);
    expect(await sniffMimeType(long, "x.csv")).toBe("text/csv");
  });

  it("calls an empty file text", async () => {
    expect(await sniffMimeType(new Uint8Array(), "empty.csv")).toBe("text/csv");
    expect(await sniffMimeType(new Uint8Array(), "empty")).toBe("text/plain");
  });
});

describe("shownInline: what a browser may show in the page", () => {
  it("allows raster images, PDF and plain text", () => {
    for (const type of ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf", "text/plain"]) {
      expect(shownInline(type), type).toBe(true);
    }
  });

  it("serves everything that can run script, and everything else, as an attachment", () => {
    for (const type of [
      "image/svg+xml",
      "text/html",
      "application/xml",
      "text/xml",
      "application/xhtml+xml",
      "text/csv",
      "text/javascript",
      "text/markdown",
      "application/json",
      "application/octet-stream",
      "application/zip",
      "TEXT/PLAIN",
      "text/plain; charset=utf-8",
      "",
    ]) {
      expect(shownInline(type), type).toBe(false);
    }
  });
});
