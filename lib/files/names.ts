/** What a name that cleans down to nothing (or to `.` or `..`) is stored as. */
export const FALLBACK_FILE_NAME = "file";

/** Code points: what most file systems, zip and tar readers and the database columns accept. */
export const MAX_NAME_CHARS = 200;
/** ext4, APFS and NTFS limit a name to 255 bytes (UTF-8) or units. */
export const MAX_NAME_BYTES = 255;

// An extension longer than this is no extension but the tail of a long name: it is cut like the rest.
const MAX_EXTENSION_CHARS = 16;
// Extensions that are one for people and their tools: the suffix of a clash goes before them, not inside.
const COMPOUND_EXTENSIONS = [".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"];

// Controls (C0, DEL, C1), bidirectional overrides and isolates, zero-width and other invisible formatting, line and
// paragraph separators, the BOM: they spoof what a name looks like (`evil\u202Egnp.exe` shows as `evilexe.png`),
// break headers and logs, or make two names that look alike differ.
const UNSAFE_CHARACTER =
  /[\u0000-\u001F\u007F-\u009F\u061C\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/u;
const UNSAFE_CHARACTERS = new RegExp(UNSAFE_CHARACTER.source, "gu");
const EDGE_SPACES_AND_DOTS = /^[\s.]+|[\s.]+$/gu;
const TRAILING_SPACES_AND_DOTS = /[\s.]+$/u;

const utf8 = new TextEncoder();
const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * The name as stored, from whatever a browser or a tool sent: its last path segment, in NFC, without controls or
 * invisible characters, without leading or trailing spaces and dots, at most MAX_NAME_CHARS code points and
 * MAX_NAME_BYTES bytes of UTF-8 (cut before the extension, which is kept), or FALLBACK_FILE_NAME. Never throws.
 */
export function plainFileName(raw: string): string {
  const lastSegment = raw.split(/[/\\]/).pop() ?? "";
  // Lone surrogates become U+FFFD here, as UTF-8 storage would make them anyway: the name stays the one compared.
  const cleaned = lastSegment.toWellFormed().replace(UNSAFE_CHARACTERS, "").normalize("NFC");
  const trimmed = cleaned.replace(EDGE_SPACES_AND_DOTS, "");
  if (trimmed === "") return FALLBACK_FILE_NAME;
  const { base, extension } = splitExtension(trimmed);
  return fitName(base, extension, "");
}

/**
 * `name`, or on a clash with `taken` `sales-2.csv`, `sales-3.csv`, …: the suffix goes before the extension, and before
 * the whole of a compound one (`archive-2.tar.gz`). The comparison ignores case: a person who downloads `A.csv` and
 * `a.csv` onto a case-insensitive file system (macOS, Windows) would have the second overwrite or rename the first.
 * `name` is a stored name (plainFileName's); `sales-2.csv` clashing again becomes `sales-2-2.csv`.
 */
export function uniqueFileName(name: string, taken: ReadonlySet<string>): string {
  const takenKeys = new Set(Array.from(taken, comparisonKey));
  if (!takenKeys.has(comparisonKey(name))) return name;
  const { base, extension } = splitExtension(name);
  // Of taken.size + 1 numbered candidates at least one is free, so the loop ends.
  for (let number = 2; ; number++) {
    const candidate = fitName(base, extension, `-${number}`);
    if (!takenKeys.has(comparisonKey(candidate))) return candidate;
  }
}

function comparisonKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}

function splitExtension(name: string): { base: string; extension: string } {
  const lowerName = name.toLowerCase();
  const compound = COMPOUND_EXTENSIONS.find(
    (extension) => lowerName.endsWith(extension) && name.length > extension.length,
  );
  const dot = compound ? name.length - compound.length : name.lastIndexOf(".");
  const extensionChars = dot > 0 ? [...name.slice(dot)].length : 0;
  if (extensionChars < 2 || extensionChars > MAX_EXTENSION_CHARS) return { base: name, extension: "" };
  return { base: name.slice(0, dot), extension: name.slice(dot) };
}

/** base + suffix + extension, with base cut at a whole grapheme (no half emoji or accent) to fit the limits. */
function fitName(base: string, extension: string, suffix: string): string {
  const tail = suffix + extension;
  const charsLeft = MAX_NAME_CHARS - [...tail].length;
  const bytesLeft = MAX_NAME_BYTES - utf8.encode(tail).length;
  if ([...base].length <= charsLeft && utf8.encode(base).length <= bytesLeft) return base + tail;
  let kept = "";
  let keptChars = 0;
  let keptBytes = 0;
  for (const { segment } of graphemes.segment(base)) {
    const chars = [...segment].length;
    const bytes = utf8.encode(segment).length;
    if (keptChars + chars > charsLeft || keptBytes + bytes > bytesLeft) break;
    kept += segment;
    keptChars += chars;
    keptBytes += bytes;
  }
  // A cut can end on a space or a dot (`report .pdf`), or leave nothing when one grapheme is over the limit alone.
  const cut = kept.replace(TRAILING_SPACES_AND_DOTS, "") || FALLBACK_FILE_NAME;
  return cut + tail;
}

/**
 * Whether a name a tool gave a file of the workspace can be shown as it is: no control, invisible or bidirectional
 * characters (a hidden file, `.env`, is fine; the workspace's paths already hold no `.` or `..` segment).
 */
export function showableName(name: string): boolean {
  return (
    !new RegExp(UNSAFE_CHARACTERS.source, UNSAFE_CHARACTERS.flags.replace("g", "")).test(name) &&
    name === name.toWellFormed()
  );
}
