/*
 * The words full-text search reads. The databases' tokenizers split at punctuation (so at `_`) but not inside
 * camelCase, and tool names are often camelCase: the words of names are stored split (Tool.nameWords, parameterWords).
 */

/** `convertTemperature_toF` → `convert temperature to f`. */
export function identifierWords(identifier: string): string {
  return identifier
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim()
    .toLowerCase();
}

/** The words of a JSON Schema's top-level parameters: their names, descriptions and allowed values. */
export function parameterWords(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return "";
  return Object.entries(properties as Record<string, { description?: unknown; enum?: unknown[] }>)
    .map(([name, property]) =>
      [
        identifierWords(name),
        typeof property?.description === "string" ? property.description : "",
        ...(Array.isArray(property?.enum) ? property.enum.filter((value) => typeof value === "string") : []),
      ]
        .filter(Boolean)
        .join(" "),
    )
    .join(" ");
}

/*
 * Words too common to say what a tool is for. PostgreSQL's English configuration drops its own list; SQLite's FTS5
 * has none, and every one of these in an OR query would make it rank nearly every tool.
 */
const STOP_WORDS = new Set(
  (
    "a about after all also am an and any are as at be been before being but by can could did do does doing for " +
    "from get give had has have having he her here hers him his how i if in into is it its itself just let me more " +
    "most my no nor not now of off on once only or other our out over own please same she should so some such than " +
    "that the their them then there these they this those through to too under until up us very was we were what " +
    "when where which while who whom why will with would you your yours"
  ).split(" "),
);

/**
 * Whether a word of a message can say what a tool does: not a stop word, and not a bare number or a lone
 * character, which are the message's data ("1.78 m and 82 kg"), not a description of the work.
 */
const isDescriptive = (word: string) => word.length > 1 && !/^\p{N}+$/u.test(word) && !STOP_WORDS.has(word);

/** Words a query searches for, at most this many: a long message still searches quickly. */
const MAX_QUERY_WORDS = 48;
/** Pairs of neighbouring words, at most this many. */
const MAX_QUERY_PAIRS = 16;
/** Stop words a pair may have between its words ("fahrenheit to celsius"). */
const MAX_WORDS_BETWEEN = 2;

export interface QueryTerms {
  /** Each descriptive word once: a tool matching any of them is a candidate. */
  words: string[];
  /**
   * Neighbouring words as phrases, with the stop words between them, to rank word order: "fahrenheit to celsius"
   * puts fahrenheit_to_celsius before celsius_to_fahrenheit, which has the same words.
   */
  pairs: string[];
}

/**
 * What a query searches for: runs of letters and digits (so nothing is read as the engine's own syntax), lower
 * case, split like stored names (`parseCsv` → `parse`, `csv`).
 */
export function queryTerms(text: string): QueryTerms {
  const tokens = [...text.matchAll(/[\p{L}\p{N}_]+/gu)].map(([token]) => token);
  const sequence = tokens.flatMap((token) => identifierWords(token).split(" ").filter(Boolean));
  // A token split into words is searched whole as well: "GitHub" is "git hub" to the splitter, "github" in a name.
  const whole = tokens.map((token) => token.toLowerCase()).filter((token) => /^[\p{L}\p{N}]+$/u.test(token));
  const words = [...new Set([...sequence, ...whole])].filter(isDescriptive).slice(0, MAX_QUERY_WORDS);
  const pairs = new Set<string>();
  let previous = -1;
  for (let i = 0; i < sequence.length && pairs.size < MAX_QUERY_PAIRS; i++) {
    if (STOP_WORDS.has(sequence[i])) continue;
    if (previous >= 0 && i - previous - 1 <= MAX_WORDS_BETWEEN) pairs.add(sequence.slice(previous, i + 1).join(" "));
    previous = i;
  }
  return { words, pairs: [...pairs] };
}
