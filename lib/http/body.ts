import type { z } from "zod";
import { config } from "@/lib/config";
import { badRequest, tooLarge } from "./errors";

/** Read a JSON body of at most `config.maxRequestBytes`, and check it against a schema. */
export async function readJson<Schema extends z.ZodType>(request: Request, schema: Schema): Promise<z.infer<Schema>> {
  const limit = config.maxRequestBytes;
  if (Number(request.headers.get("content-length") ?? 0) > limit) throw tooLarge(`The request body is over ${limit / 1024} KB.`);
  const text = await readText(request, limit);
  let body: unknown;
  try {
    body = text.trim() === "" ? {} : JSON.parse(text);
  } catch {
    throw badRequest('The request body must be JSON, e.g. {"content": "Hello"}.');
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw badRequest(`${issue.path.length ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  }
  return parsed.data;
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
