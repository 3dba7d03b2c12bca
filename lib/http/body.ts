import type { z } from "zod";
import { config } from "@/lib/settings/config";
import { findProfile, listProfiles } from "@/lib/settings/profiles";
import { ApiError, badRequest, invalidInput, tooLarge } from "@/lib/platform/errors";

/**
 * Read a JSON body of at most `config.maxRequestBytes`, and check it against a schema. It must say it is JSON
 * (a form or a text/plain body, which any site can post, is refused), and its text must be well-formed Unicode:
 * a lone surrogate cannot be stored.
 */
export async function readJson<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.infer<Schema>> {
  const limit = config.maxRequestBytes;
  if (Number(request.headers.get("content-length") ?? 0) > limit)
    throw tooLarge(`The request body is over ${limit / 1024} KB.`);
  const text = await readText(request, limit);
  const type = request.headers.get("content-type")?.split(";")[0].trim().toLowerCase();
  if (text.trim() !== "" && type !== "application/json") {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `Send the body as JSON with the header Content-Type: application/json (got ${type ?? "none"}).`,
    );
  }
  if (nestingBeyond(text, MAX_JSON_DEPTH))
    throw badRequest(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw badRequest('The request body must be JSON, e.g. {"content": "Hello"}.');
  }
  const malformed = firstMalformedString(body);
  if (malformed !== undefined)
    throw badRequest(
      `${malformed || "The body"} contains an unpaired UTF-16 surrogate (e.g. "\\ud800"), which is not text.`,
    );
  return checkBody(schema, body);
}

/** A parsed body checked against a schema: 400 with the first problem and where it is. */
export function checkBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw invalidInput(parsed.error.issues);
  return parsed.data;
}

/** Deeper JSON than any request needs; everything that walks a body (the checks, zod, Prisma) recurses. */
const MAX_JSON_DEPTH = 64;

/** Whether JSON text opens more than `limit` arrays or objects inside one another: one pass, before it is parsed. */
function nestingBeyond(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === "\\") i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") {
      if (++depth > limit) return true;
    } else if (char === "]" || char === "}") depth--;
  }
  return false;
}

async function readText(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(`The request body is over ${limit / 1024} KB.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The path of the first string (key or value) that is not well-formed Unicode; "" for the body itself. */
function firstMalformedString(value: unknown, path = ""): string | undefined {
  if (typeof value === "string") return value.isWellFormed() ? undefined : path;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!key.isWellFormed()) return childPath;
    const found = firstMalformedString(child, childPath);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A profile name from a request body, if a profile has it; 400 naming the ones there are otherwise. */
export function knownProfile(name: string): string {
  if (findProfile(name)) return name;
  const names = listProfiles().profiles.map((profile) => profile.name);
  throw badRequest(`There is no profile named "${name}"; the profiles are: ${names.join(", ")}.`);
}
