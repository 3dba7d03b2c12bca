import type { RegisteredToolView } from "@/lib/events/types";
import { db } from "./client";

export interface NewTool {
  conversationId: string;
  runId: string;
  name: string;
  description: string;
  parametersSchema: Record<string, unknown>;
  code: string;
}

const view = { id: true, name: true, description: true, parametersSchema: true, code: true, version: true, status: true, createdAt: true } as const;

/** Store a tool as the next version of its name; earlier versions stay for the trace but are superseded. */
export function saveToolVersion(tool: NewTool) {
  return db.$transaction(async (tx) => {
    const previous = await tx.tool.findFirst({
      where: { conversationId: tool.conversationId, name: tool.name },
      orderBy: { version: "desc" },
      select: { version: true },
    });
    await tx.tool.updateMany({
      where: { conversationId: tool.conversationId, name: tool.name, status: "active" },
      data: { status: "superseded" },
    });
    return tx.tool.create({
      // The model wrote these: a lone surrogate, which the database refuses, becomes U+FFFD.
      data: {
        ...tool,
        description: tool.description.toWellFormed(),
        code: tool.code.toWellFormed(),
        parametersSchema: JSON.stringify(tool.parametersSchema),
        version: (previous?.version ?? 0) + 1,
      },
      select: view,
    });
  });
}

export function listActiveTools(conversationId: string) {
  return db.tool.findMany({ where: { conversationId, status: "active" }, orderBy: { createdAt: "asc" }, select: view });
}

export function listAllTools(conversationId: string) {
  return db.tool.findMany({ where: { conversationId }, orderBy: [{ name: "asc" }, { version: "asc" }], select: view });
}

export type ToolRow = Awaited<ReturnType<typeof listActiveTools>>[number];

/** A stored tool as the trace and the UI show it. */
export function toolView(row: ToolRow): RegisteredToolView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    parametersSchema: JSON.parse(row.parametersSchema) as Record<string, unknown>,
    code: row.code,
    version: row.version,
  };
}
