const TITLE_CHARS = 60;

/** A new conversation's title: the first line of its first message, cut at 60 characters. */
export function titleFrom(content: string): string {
  const line = content.trim().split("\n")[0].replace(/\s+/g, " ");
  // Cut by code point, never inside a surrogate pair.
  const characters = [...line];
  return characters.length > TITLE_CHARS ? `${characters.slice(0, TITLE_CHARS - 1).join("")}…` : line || "New chat";
}
