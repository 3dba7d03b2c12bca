import type { JSONSchema7 } from "ai";
import { z } from "zod";

/** Why a schema cannot be shown to the model without references: a recursive or outside one, or it grows too big. */
export class SchemaReferenceError extends Error {}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas", "$defs", "definitions"]);
/** Keywords whose value is data, not a schema: a `$ref` key in them is a value, never followed. */
const DATA = new Set(["enum", "const", "default", "examples", "required", "dependentRequired"]);
/** References that cannot be inlined from the schema itself. */
const DYNAMIC = ["$dynamicRef", "$recursiveRef"];
/** Nodes an inlined schema may have: a definition used twice at every level doubles per level. */
const MAX_NODES = 20_000;

export interface InlineOptions {
  /** A reference met again inside itself: refused (`throw`), or shown as any value (`any`, `{}`). */
  recursion?: "throw" | "any";
}

/**
 * `schema` with each local `$ref` (a JSON pointer such as "#/$defs/Example") replaced by the schema it points to, and
 * `$defs`/`definitions` dropped: many local servers' grammars and chat templates cannot follow references. A
 * reference's siblings (its description) are kept over what it points to. Throws SchemaReferenceError, with where,
 * for a reference that points outside the schema, to nothing, or (unless `recursion: "any"`) back into itself.
 */
export function inlineRefs(schema: Record<string, unknown>, { recursion = "throw" }: InlineOptions = {}) {
  let nodes = 0;
  const root = schema as JsonObject;

  const inSchema = (node: Json, where: string, expanding: string[]): Json => {
    if (++nodes > MAX_NODES)
      throw new SchemaReferenceError(`with its references written out, the schema is over ${MAX_NODES} nodes.`);
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const { $ref, ...siblings } = node;
    const dynamic = DYNAMIC.find((key) => key in siblings);
    if (dynamic) throw new SchemaReferenceError(`${where}: ${dynamic} cannot be written out; use a $ref to $defs.`);
    const out: JsonObject = {};
    if ($ref !== undefined) Object.assign(out, target($ref, where, expanding));
    for (const [key, value] of Object.entries(siblings)) {
      if (key === "$defs" || key === "definitions") continue;
      out[key] = keyword(key, value, `${where}/${key}`, expanding);
    }
    return out;
  };

  const keyword = (key: string, value: Json, where: string, expanding: string[]): Json => {
    if (DATA.has(key) || value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return value.map((item, index) => inSchema(item, `${where}/${index}`, expanding));
    if (!SCHEMA_MAPS.has(key)) return inSchema(value, where, expanding);
    return Object.fromEntries(
      Object.entries(value).map(([name, item]) => [name, inSchema(item, `${where}/${name}`, expanding)]),
    );
  };

  const target = (ref: Json, where: string, expanding: string[]): JsonObject => {
    const shown = `${where || "the root"}: $ref ${JSON.stringify(ref)}`;
    if (typeof ref !== "string" || (ref !== "#" && !ref.startsWith("#/")))
      throw new SchemaReferenceError(`${shown} is not a reference within the schema ("#/$defs/Name").`);
    if (expanding.includes(ref)) {
      if (recursion === "any") return {};
      throw new SchemaReferenceError(
        `${shown} refers to itself. The model is shown schemas with their references written out, which a ` +
          "recursive schema cannot be: write the nesting out to a fixed depth, or give the recursive part as " +
          '{"type": "object"} and check it in the code.',
      );
    }
    let found: Json = root;
    for (const token of ref === "#" ? [] : ref.slice(2).split("/")) {
      const name = decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
      if (found === null || typeof found !== "object" || !Object.hasOwn(found, name))
        throw new SchemaReferenceError(`${shown} points to nothing in the schema.`);
      found = (found as JsonObject)[name];
    }
    if (typeof found === "boolean") return found ? {} : { not: {} };
    return inSchema(found, where, [...expanding, ref]) as JsonObject;
  };

  return inSchema(root, "", ["#"]) as Record<string, unknown>;
}

/** A zod schema as the model is shown it: JSON Schema of its input, written out (a zod `id` makes a `$ref`). */
export function modelSchema(schema: z.ZodType): JSONSchema7 {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
  return inlineRefs(json) as JSONSchema7;
}

/**
 * A stored tool's schema as the model is shown it: inlined, a recursive reference shown as any value. A version
 * saved before references were checked may hold one that cannot be written out at all; it is shown as it is.
 */
export function offeredSchema(schema: Record<string, unknown>): Record<string, unknown> {
  try {
    return inlineRefs(schema, { recursion: "any" });
  } catch (error) {
    if (error instanceof SchemaReferenceError) return schema;
    throw error;
  }
}
