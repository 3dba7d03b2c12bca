/**
 * Names in the librarian's store, after exist-db: collections are slash-separated paths ("/db/agents/greeter"),
 * a document's path is its collection and its name ("/db/agents/greeter/conversation-001.xml"). Names are plain
 * (letters, digits, _ . -, not starting with a dot), so there is no "..", no escaping and no surprise.
 */
import { z } from "zod";

const SEGMENT = "[A-Za-z0-9_-][\\w.-]{0,63}";
const MAX_DEPTH = 16;

export const collectionPath = z
  .string()
  .max(MAX_DEPTH * 65)
  .transform((value) => (value.length > 1 ? value.replace(/\/+$/, "") : value))
  .pipe(
    z
      .string()
      .regex(
        new RegExp(`^(/${SEGMENT}){1,${MAX_DEPTH}}$`),
        "a collection is a path of names such as /db/agents (letters, digits, _ . -; not starting with a dot)",
      ),
  );

export const documentName = z
  .string()
  .regex(
    new RegExp(`^[A-Za-z0-9_-][\\w.-]{0,127}$`),
    "a document name such as conversation-001.xml (letters, digits, _ . -; not starting with a dot)",
  );

export const documentPath = z
  .string()
  .max(MAX_DEPTH * 65 + 129)
  .transform((value, context) => {
    const slash = value.lastIndexOf("/");
    const collection = collectionPath.safeParse(value.slice(0, slash));
    const name = documentName.safeParse(value.slice(slash + 1));
    if (slash > 0 && collection.success && name.success) return { collection: collection.data, name: name.data };
    context.addIssue({
      code: "custom",
      message: "a document path is a collection and a name, such as /db/agents/greeter/conversation-001.xml",
    });
    return z.NEVER;
  });

export const pathOf = (collection: string, name: string) => `${collection}/${name}`;

const within = (collection: string, ancestor: string) =>
  collection === ancestor || collection.startsWith(`${ancestor}/`);

/**
 * Whether the profile lets the librarian use this collection: `allowed_paths` lists collections (each with those
 * under it); absent, the whole library. A call over the whole library (null) needs no list.
 */
export function collectionRefusal(collection: string | null, allowed: string[] | undefined): string | undefined {
  if (!allowed) return undefined;
  if (collection === null)
    return `This profile limits the librarian to ${allowed.join(", ")}; name one of them as the collection.`;
  if (allowed.some((ancestor) => within(collection, ancestor.replace(/\/+$/, "")))) return undefined;
  return `${collection} is not in the collections this profile allows (${allowed.join(", ")}).`;
}
