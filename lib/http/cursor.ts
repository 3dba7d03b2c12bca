import { badRequest } from "./errors";

/** An opaque page cursor: the position a page ended at, as base64url JSON. */
export const encodeCursor = (position: Record<string, string>) => Buffer.from(JSON.stringify(position)).toString("base64url");

/** The position in a cursor this API gave out, with the fields `keys` names; 400 for anything else. */
export function decodeCursor<Key extends string>(cursor: string | undefined, keys: Key[]): Record<Key, string> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const decoded = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;
    if (keys.every((key) => typeof decoded[key] === "string")) return decoded as Record<Key, string>;
  } catch {
    // answered below
  }
  throw badRequest("?cursor is not one this API gave out; use the nextCursor of the previous page.");
}
