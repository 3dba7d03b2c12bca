/** How files read to people and models: pure, for the browser and the server alike. */

/** A size as people read it: 512 bytes, 3.4 KB, 1.2 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "byte" : "bytes"}`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Math.round(value * 10) / 10} ${units[unit]}`;
}

/** A file the preview reads as CSV: by the type the server sniffed, or by its name. */
export const isCsv = (file: { name: string; mimeType: string }) =>
  file.mimeType === "text/csv" || /\.csv$/i.test(file.name);

/** The images every browser draws, shown as a thumbnail; others (SVG among them) are only linked. */
const THUMBNAIL_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/avif"]);
export const hasThumbnail = (file: { mimeType: string }) => THUMBNAIL_TYPES.has(file.mimeType);
