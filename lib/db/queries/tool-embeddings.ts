import { db } from "@/lib/db/driver/client";

export interface StoredEmbedding {
  toolId: string;
  model: string;
  textHash: string;
  vector: Float32Array<ArrayBuffer>;
}

/** The stored embeddings of these tool versions (any model: the caller compares). */
export async function findEmbeddings(toolIds: string[]): Promise<StoredEmbedding[]> {
  const rows = await db.toolEmbedding.findMany({ where: { toolId: { in: toolIds } } });
  return rows.map((row) => ({
    ...row,
    vector: new Float32Array(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength / 4).slice(),
  }));
}

/** Store embeddings, replacing older ones of the same tool versions. */
export async function saveEmbeddings(embeddings: StoredEmbedding[]): Promise<void> {
  await db.$transaction(
    embeddings.map(({ toolId, model, textHash, vector }) => {
      const data = { model, textHash, vector: new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength) };
      return db.toolEmbedding.upsert({ where: { toolId }, create: { toolId, ...data }, update: data });
    }),
  );
}
