import type { McpClientLimits } from "@/lib/settings/config";

export type JsonSchemaObject = { type: "object"; [key: string]: unknown };

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpToolInfo {
  server: string;
  /** The server's own name for it, which `call` takes. */
  name: string;
  /** `${server}__${name}`, with what a model's tool name may not hold made `_`. */
  qualifiedName: string;
  title?: string;
  description: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: McpToolAnnotations;
}

/** A server's tool left out, and why (a status line shows these). */
export interface SkippedTool {
  name: string;
  reason: string;
}

/** What a model's tool name may be (OpenAI's rule, the strictest of the dialects). */
const MODEL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export const qualifiedName = (server: string, tool: string) => `${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;

/**
 * A server's tools as the agent may offer them, within the limits: at most `maxTools`, schemas that are JSON
 * objects of at most `maxSchemaBytes`, descriptions cut at `maxDescriptionChars`, names that fit a model's rule and
 * do not collide once qualified. Annotations are kept only as the booleans and title the spec defines.
 */
export function toolInfos(
  server: string,
  tools: readonly unknown[],
  limits: Pick<McpClientLimits, "maxTools" | "maxSchemaBytes" | "maxDescriptionChars">,
): { tools: McpToolInfo[]; skipped: SkippedTool[] } {
  const kept: McpToolInfo[] = [];
  const skipped: SkippedTool[] = [];
  const taken = new Set<string>();
  for (const raw of tools) {
    const tool = (raw ?? {}) as Record<string, unknown>;
    const name = typeof tool.name === "string" ? tool.name : "";
    const skip = (reason: string) => skipped.push({ name: name.slice(0, 100), reason });
    if (kept.length >= limits.maxTools) {
      skip(`over the ${limits.maxTools} tools kept of one server`);
      continue;
    }
    const qualified = qualifiedName(server, name);
    if (!name || !MODEL_NAME.test(qualified)) {
      skip("its name, with the server's, is not 1 to 64 letters, digits, _ and -");
      continue;
    }
    if (taken.has(qualified)) {
      skip(`another tool of the server is also ${qualified}`);
      continue;
    }
    const inputSchema = schemaOf(tool.inputSchema, limits.maxSchemaBytes);
    if (typeof inputSchema === "string") {
      skip(`its input schema ${inputSchema}`);
      continue;
    }
    const outputSchema =
      tool.outputSchema === undefined ? undefined : schemaOf(tool.outputSchema, limits.maxSchemaBytes);
    if (typeof outputSchema === "string") {
      skip(`its output schema ${outputSchema}`);
      continue;
    }
    taken.add(qualified);
    const description = typeof tool.description === "string" ? tool.description : "";
    const annotations = annotationsOf(tool.annotations);
    const title = typeof tool.title === "string" ? tool.title.slice(0, 200) : annotations?.title;
    kept.push({
      server,
      name,
      qualifiedName: qualified,
      ...(title ? { title } : {}),
      description:
        description.length > limits.maxDescriptionChars
          ? `${description.slice(0, limits.maxDescriptionChars)}… (cut)`
          : description,
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      ...(annotations ? { annotations } : {}),
    });
  }
  return { tools: kept, skipped };
}

/** The schema, or what is wrong with it. */
function schemaOf(schema: unknown, maxBytes: number): JsonSchemaObject | string {
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) return "is not a JSON object";
  if ((schema as Record<string, unknown>).type !== "object") return 'is not of type "object"';
  const size = Buffer.byteLength(JSON.stringify(schema));
  if (size > maxBytes) return `is ${size} bytes, over the ${maxBytes} byte limit`;
  return schema as JsonSchemaObject;
}

function annotationsOf(raw: unknown): McpToolAnnotations | undefined {
  if (!raw || typeof raw !== "object") return undefined;
  const given = raw as Record<string, unknown>;
  const annotations: McpToolAnnotations = {};
  if (typeof given.title === "string") annotations.title = given.title.slice(0, 200);
  for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const)
    if (typeof given[hint] === "boolean") annotations[hint] = given[hint];
  return Object.keys(annotations).length ? annotations : undefined;
}
