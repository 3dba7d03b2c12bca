import { describe, expect, it } from "vitest";
import { FALLBACK_FILE_NAME, MAX_NAME_BYTES, MAX_NAME_CHARS, plainFileName, uniqueFileName } from "@/lib/files/names";

const bytesOf = (text: string) => new TextEncoder().encode(text).length;
const charsOf = (text: string) => [...text].length;
const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/u;

describe("plainFileName: the name as stored", () => {
  it("keeps only the last path segment, whichever separator the client used", () => {
    expect(plainFileName("../../etc/passwd")).toBe("passwd");
    expect(plainFileName("..\\..\\Windows\\System32\\cmd.exe")).toBe("cmd.exe");
    expect(plainFileName("C:\\fakepath\\photo.png")).toBe("photo.png");
    expect(plainFileName("/var/www/../../secret.txt")).toBe("secret.txt");
    expect(plainFileName("mixed/..\\../report.pdf")).toBe("report.pdf");
    // Look-alike slashes are characters of a name, not separators: they cannot climb a directory.
    expect(plainFileName("..／..／etc／passwd")).toBe("／..／etc／passwd");
  });

  it("turns `.`, `..`, separators alone and what cleans down to nothing into the fallback", () => {
    for (const raw of [
      "",
      ".",
      "..",
      "...",
      "/",
      "\\",
      "foo/..",
      "foo\\.",
      "dir/",
      "   ",
      " . .. ",
      "\u0000",
      "\u202E\u200B",
    ]) {
      expect(plainFileName(raw), JSON.stringify(raw)).toBe(FALLBACK_FILE_NAME);
    }
    expect(plainFileName("..\u200B")).toBe(FALLBACK_FILE_NAME);
  });

  it("removes NUL instead of cutting there, so `evil.php\\0.png` keeps the extension a file system would see", () => {
    expect(plainFileName("evil.php\u0000.png")).toBe("evil.php.png");
    expect(plainFileName("report\u0000")).toBe("report");
  });

  it("removes C0 and C1 controls: no new lines or escapes reach headers, logs or terminals", () => {
    expect(plainFileName("a\nb\r\tc\u001B[31md\u007F\u0085\u009B.txt")).toBe("abc[31md.txt");
    expect(plainFileName("name.txt\r\nSet-Cookie: id=1")).toBe("name.txtSet-Cookie: id=1");
  });

  it("removes bidirectional overrides, so `evil\\u202Egnp.exe` cannot pass for a PNG", () => {
    const stored = plainFileName("evil\u202Egnp.exe");
    expect(stored).toBe("evilgnp.exe");
    expect(stored.endsWith(".exe")).toBe(true);
    expect(plainFileName("\u2067invoice\u2069\u202Dfdp.exe")).toBe("invoicefdp.exe");
    expect(plainFileName("report\u061C\u202A\u202B\u202C.pdf")).toBe("report.pdf");
  });

  it("removes zero-width and invisible characters that make look-alike names differ", () => {
    expect(plainFileName("in\u200Bvoi\u200Cce\u200D\u200E\u200F.pdf")).toBe("invoice.pdf");
    expect(plainFileName("\uFEFFbudget.xlsx")).toBe("budget.xlsx");
    expect(plainFileName("pass\u2060word\u2028s\u2029.txt")).toBe("passwords.txt");
  });

  it("stores NFC, so a name typed on macOS (decomposed) and elsewhere is one name", () => {
    const decomposed = "Cafe\u0301.txt";
    expect(plainFileName(decomposed)).toBe("Café.txt");
    expect(plainFileName(decomposed)).toBe(plainFileName("Caf\u00E9.txt"));
  });

  it("trims leading and trailing spaces and dots: no hidden files, no `x.html.` that Windows saves as x.html", () => {
    expect(plainFileName(".htaccess")).toBe("htaccess");
    expect(plainFileName(" .. .bashrc")).toBe("bashrc");
    expect(plainFileName("x.html.")).toBe("x.html");
    expect(plainFileName("report.pdf . . ")).toBe("report.pdf");
    expect(plainFileName("\u00A0\u3000notes.md\u00A0")).toBe("notes.md");
    expect(plainFileName("my  report.v2.pdf")).toBe("my  report.v2.pdf");
  });

  it("cuts a 10,000-character name to MAX_NAME_CHARS, keeping its extension", () => {
    const stored = plainFileName(`${"a".repeat(10_000)}.pdf`);
    expect(charsOf(stored)).toBe(MAX_NAME_CHARS);
    expect(stored).toBe(`${"a".repeat(MAX_NAME_CHARS - 4)}.pdf`);
  });

  it("cuts by UTF-8 bytes too, at whole characters, never half a surrogate pair", () => {
    const accented = plainFileName(`${"é".repeat(300)}.csv`);
    expect(bytesOf(accented)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(accented).toBe(`${"é".repeat(125)}.csv`);

    const emoji = plainFileName(`${"👍".repeat(100)}.png`);
    expect(emoji.isWellFormed()).toBe(true);
    expect(emoji).toBe(`${"👍".repeat(62)}.png`);
  });

  it("cuts at grapheme boundaries: no skin tone, accent or flag is split from its character", () => {
    const toned = plainFileName(`${"👍🏽".repeat(100)}.txt`);
    expect(bytesOf(toned)).toBeLessThanOrEqual(MAX_NAME_BYTES);
    expect(toned).toMatch(/^(👍🏽)+\.txt$/u);
    // q has no precomposed accented form: NFC leaves the pair, and the cut keeps it whole.
    expect(plainFileName(`${"q\u0301".repeat(100)}.txt`)).toMatch(/^(q\u0301)+\.txt$/u);
    expect(plainFileName(`${"🇫🇷".repeat(60)}.jpg`)).toMatch(/^(🇫🇷)+\.jpg$/u);
  });

  it("cuts a name whose `extension` is its long tail as a whole, and trims what the cut leaves at its end", () => {
    const stored = plainFileName(`a.${"b".repeat(300)}`);
    expect(charsOf(stored)).toBe(MAX_NAME_CHARS);
    expect(plainFileName(`${"x".repeat(194)} . . .pdf`)).toBe(`${"x".repeat(194)}.pdf`);
    expect(plainFileName(`${"x".repeat(195)}     tail.pdf`)).toBe(`${"x".repeat(195)}.pdf`);
  });

  it("falls back for a single grapheme longer than the limit (a 'Zalgo' name), keeping the extension", () => {
    expect(plainFileName(`a${"\u0301".repeat(300)}.txt`)).toBe("file.txt");
  });

  it("replaces lone surrogates, which UTF-8 storage cannot hold", () => {
    expect(plainFileName("\uD800abc\uDFFF.txt")).toBe("\uFFFDabc\uFFFD.txt");
  });

  it("never throws, and what it gives is always safe and stable (random strings)", () => {
    // A small linear congruential generator: the same strings on every run.
    let seed = 42;
    const random = (below: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % below;
    const alphabet = [..."./\\ .\u0000\u202E\u200B\u0301\uD83D\uDE00\uD800é中", "a", "Z", "\n", "\u00A0", "..", "🇫🇷"];
    for (let run = 0; run < 2000; run++) {
      const length = random(run % 10 === 0 ? 400 : 30);
      const raw = Array.from({ length }, () => alphabet[random(alphabet.length)]).join("");
      const stored = plainFileName(raw);
      expect(stored.length, JSON.stringify(raw)).toBeGreaterThan(0);
      expect(charsOf(stored)).toBeLessThanOrEqual(MAX_NAME_CHARS);
      expect(bytesOf(stored)).toBeLessThanOrEqual(MAX_NAME_BYTES);
      expect(stored).not.toMatch(/[/\\]/);
      expect(stored).not.toMatch(UNSAFE);
      expect(stored).not.toMatch(/^[\s.]|[\s.]$/u);
      expect(stored.isWellFormed()).toBe(true);
      expect(stored).toBe(stored.normalize("NFC"));
      expect(plainFileName(stored)).toBe(stored);
    }
  });
});

describe("uniqueFileName: a name no other file of the conversation has", () => {
  it("keeps a free name, and numbers one that clashes before its extension", () => {
    expect(uniqueFileName("sales.csv", new Set(["other.csv"]))).toBe("sales.csv");
    expect(uniqueFileName("sales.csv", new Set(["sales.csv"]))).toBe("sales-2.csv");
    expect(uniqueFileName("sales.csv", new Set(["sales.csv", "sales-2.csv"]))).toBe("sales-3.csv");
    expect(uniqueFileName("README", new Set(["README"]))).toBe("README-2");
    expect(uniqueFileName("my.report.v2.pdf", new Set(["my.report.v2.pdf"]))).toBe("my.report.v2-2.pdf");
  });

  it("compares without case: A.csv and a.csv would be one file once downloaded on macOS or Windows", () => {
    expect(uniqueFileName("a.csv", new Set(["A.csv"]))).toBe("a-2.csv");
    expect(uniqueFileName("Sales.CSV", new Set(["sales.csv", "SALES-2.csv"]))).toBe("Sales-3.CSV");
    expect(uniqueFileName("Äpfel.txt", new Set(["äpfel.txt"]))).toBe("Äpfel-2.txt");
  });

  it("compares in NFC, so a decomposed name in the set clashes with its composed twin", () => {
    expect(uniqueFileName("Café.txt", new Set(["Cafe\u0301.txt"]))).toBe("Café-2.txt");
  });

  it("puts the number before the whole of a compound extension: archive-2.tar.gz", () => {
    expect(uniqueFileName("archive.tar.gz", new Set(["archive.tar.gz"]))).toBe("archive-2.tar.gz");
    expect(uniqueFileName("logs.TAR.XZ", new Set(["logs.tar.xz"]))).toBe("logs-2.TAR.XZ");
    expect(uniqueFileName("data.gz", new Set(["data.gz"]))).toBe("data-2.gz");
  });

  it("numbers a numbered name again rather than guessing it was numbered by us", () => {
    expect(uniqueFileName("sales-2.csv", new Set(["sales-2.csv"]))).toBe("sales-2-2.csv");
  });

  it("stays within the limits when the number makes a longest name longer", () => {
    const longest = plainFileName(`${"n".repeat(500)}.pdf`);
    const unique = uniqueFileName(longest, new Set([longest]));
    expect(charsOf(unique)).toBeLessThanOrEqual(MAX_NAME_CHARS);
    expect(unique.endsWith("-2.pdf")).toBe(true);

    const wide = plainFileName(`${"語".repeat(200)}.txt`);
    const taken = new Set([wide]);
    for (let upload = 0; upload < 10; upload++) taken.add(uniqueFileName(wide, taken));
    expect(taken.size).toBe(11);
    for (const name of taken) {
      expect(bytesOf(name), name).toBeLessThanOrEqual(MAX_NAME_BYTES);
      expect(name.endsWith(".txt")).toBe(true);
    }
    expect([...taken].at(-1)).toMatch(/^語+-11\.txt$/u);
  });

  it("ends however many names are taken", () => {
    const taken = new Set(["x.txt", ...Array.from({ length: 999 }, (_, index) => `X-${index + 2}.TXT`)]);
    expect(uniqueFileName("x.txt", taken)).toBe("x-1001.txt");
  });
});
