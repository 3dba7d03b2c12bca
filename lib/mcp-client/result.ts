import { formatBytes } from "./http";

/** One piece of a tool's result, as a server sent it; an embedded blob keeps its size, not its bytes. */
export type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "audio"; mimeType: string; data: string }
  | { type: "resource"; uri: string; mimeType?: string; text?: string; blobBytes?: number }
  | { type: "resource_link"; uri: string; name: string; title?: string; description?: string; mimeType?: string };

export type McpCallResult =
  | { ok: true; content: McpContent[]; structuredContent?: unknown; isError: boolean }
  /** A sentence the model can act on: which server, what happened. */
  | { ok: false; error: string };

/** A server's `tools/call` result (checked by the SDK's schema) as `McpContent`. */
export function callResult(result: {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}): McpCallResult & { ok: true } {
  const content = (result.content ?? []).map(contentOf);
  return {
    ok: true,
    content,
    ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
    isError: result.isError === true,
  };
}

const text = (value: unknown) => (typeof value === "string" ? value : undefined);

function contentOf(raw: unknown): McpContent {
  const block = (raw ?? {}) as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return { type: "text", text: text(block.text) ?? "" };
    case "image":
    case "audio":
      return {
        type: block.type,
        mimeType: text(block.mimeType) ?? "application/octet-stream",
        data: text(block.data) ?? "",
      };
    case "resource": {
      const resource = (block.resource ?? {}) as Record<string, unknown>;
      const blob = text(resource.blob);
      return {
        type: "resource",
        uri: text(resource.uri) ?? "",
        ...(text(resource.mimeType) ? { mimeType: text(resource.mimeType) } : {}),
        ...(text(resource.text) !== undefined ? { text: text(resource.text) } : {}),
        ...(blob !== undefined ? { blobBytes: base64Bytes(blob) } : {}),
      };
    }
    case "resource_link":
      return {
        type: "resource_link",
        uri: text(block.uri) ?? "",
        name: text(block.name) ?? "",
        ...(text(block.title) ? { title: text(block.title) } : {}),
        ...(text(block.description) ? { description: text(block.description) } : {}),
        ...(text(block.mimeType) ? { mimeType: text(block.mimeType) } : {}),
      };
    default:
      // A kind this client does not know (a newer revision's): named, so the model knows something was there.
      return { type: "text", text: `[content of type ${String(block.type).slice(0, 40)}]` };
  }
}

/** The bytes a base64 string holds, without decoding it. */
export function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.replace(/\s/g, "").length * 3) / 4) - padding);
}

/** What a person's screen can show beside the model's text: images and audio, with their data. */
export interface McpMedia {
  type: "image" | "audio";
  mimeType: string;
  data: string;
}

/**
 * A result as the model reads it: the text blocks joined, media and blobs said in a line with their size (their
 * data kept in `media` for display), resources by URI, `structuredContent` as JSON when no text block says it
 * already; a failure is its sentence, and `isError` a result the model should read as the tool's failure.
 */
export function resultForModel(result: McpCallResult): { text: string; isError: boolean; media: McpMedia[] } {
  if (!result.ok) return { text: result.error, isError: true, media: [] };
  const media: McpMedia[] = [];
  const lines = result.content.map((block) => {
    switch (block.type) {
      case "text":
        return block.text;
      case "image":
      case "audio":
        media.push(block);
        return `[${block.type} ${block.mimeType}, ${formatBytes(base64Bytes(block.data))}]`;
      case "resource":
        if (block.text !== undefined)
          return `[resource ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}]\n${block.text}`;
        return `[resource ${block.uri}${block.mimeType ? ` ${block.mimeType}` : ""}${block.blobBytes !== undefined ? `, ${formatBytes(block.blobBytes)}` : ""}]`;
      case "resource_link":
        return `[link ${block.title ?? block.name}: ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ""}]${block.description ? ` ${block.description}` : ""}`;
    }
  });
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    // Servers usually repeat structured content as a text block (the spec asks them to): said once.
    if (!result.content.some((block) => block.type === "text" && sameJson(block.text, result.structuredContent)))
      lines.push(json);
  }
  const text = lines.join("\n");
  return {
    text: text || (result.isError ? "The tool failed without saying why." : "(no content)"),
    isError: result.isError,
    media,
  };
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}
