import { badRequest } from "@/lib/platform/errors";

/** An opaque page cursor: the position a page ended at, as base64url JSON. */
const encodeCursor = (position: Record<string, string>) => Buffer.from(JSON.stringify(position)).toString("base64url");

/**
 * One page of a listing fetched with one row more than `limit`: that extra row only tells that a next page exists,
 * which then starts after the page's last row (`position` says where that is).
 */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  position: (last: Row) => Record<string, string>,
): { page: Row[]; nextCursor: string | null } {
  const page = rows.slice(0, limit);
  return { page, nextCursor: rows.length > limit ? encodeCursor(position(page[page.length - 1])) : null };
}

/** The position in a cursor this API gave out, with the fields `keys` names; 400 for anything else. */
export function decodeCursor<Key extends string>(
  cursor: string | undefined,
  keys: Key[],
): Record<Key, string> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    if (keys.every((key) => typeof decoded[key] === "string")) return decoded as Record<Key, string>;
  } catch {
    // answered below
  }
  throw badRequest("?cursor is not one this API gave out; use the nextCursor of the previous page.");
}
