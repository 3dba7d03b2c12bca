import { createHash } from "node:crypto";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embed, embedMany, type EmbeddingModel } from "ai";
import { findEmbeddings, saveEmbeddings, type StoredEmbedding } from "@/lib/db/queries/tool-embeddings";
import { embeddingCandidates, embeddingTexts, type SearchScope } from "@/lib/db/queries/tools";
import { processWide } from "@/lib/platform/process-wide";
import { embeddingConfig } from "@/lib/settings/config";

/** Tools embedded during one search at most: a large library new to a model is embedded over several searches. */
const MAX_EMBEDDED_PER_SEARCH = 256;
/** An embedding server that does not answer in this time is left out of the search, which goes on on full text. */
const EMBEDDING_TIMEOUT_MS = 10_000;
/** Vectors kept in memory, by tool version: a search compares its query with the whole library. */
const CACHED_VECTORS = 20_000;

const cache = processWide("toolEmbeddings", () => new Map<string, StoredEmbedding>());

/** The configured embedding model, and its id: which vectors it made is stored with them. */
function embeddingModel(): { model: EmbeddingModel; id: string } | undefined {
  const config = embeddingConfig();
  if (!config) return undefined;
  const model =
    config.api === "compatible"
      ? createOpenAICompatible({
          name: "openai-compatible",
          baseURL: config.baseURL ?? "https://api.openai.com/v1",
          apiKey: config.apiKey,
        }).embeddingModel(config.model)
      : createOpenAI({ apiKey: config.apiKey ?? "not-needed", baseURL: config.baseURL }).embedding(config.model);
  return { model, id: config.model };
}

/**
 * The ids of the searchable tools closest in meaning to `query`, best first, when an embedding model is configured
 * (TOOLSMITH_EMBEDDING_MODEL); none otherwise, or when the embedding server fails (the search then ranks by words).
 */
export async function toolIdsByMeaning(
  ownerId: string,
  query: string,
  scope: SearchScope,
  limit: number,
): Promise<string[]> {
  const configured = embeddingModel();
  if (!configured || !query.trim()) return [];
  const { model, id } = configured;
  const signal = AbortSignal.timeout(EMBEDDING_TIMEOUT_MS);
  try {
    const [{ embedding }, vectors] = await Promise.all([
      embed({ model, value: query, abortSignal: signal, maxRetries: 1 }),
      toolVectors(model, id, ownerId, scope, signal),
    ]);
    const target = Float32Array.from(embedding);
    return vectors
      .map(({ toolId, vector }) => ({ toolId, similarity: cosine(target, vector) }))
      .sort((a, b) => b.similarity - a.similarity)
      .slice(0, limit)
      .map((entry) => entry.toolId);
  } catch (error) {
    console.warn(`Tool search goes on without embeddings: ${error instanceof Error ? error.message : error}`);
    return [];
  }
}

/**
 * The embedding of every searchable tool: from memory, the database, or the model (then stored). The database says
 * which embedding is current by the hash of its text, so a process's cache never serves a replaced one.
 */
async function toolVectors(
  model: EmbeddingModel,
  modelId: string,
  ownerId: string,
  scope: SearchScope,
  signal: AbortSignal,
): Promise<StoredEmbedding[]> {
  const candidates = await embeddingCandidates(ownerId, scope, modelId);
  const current = new Map(candidates.map(({ id, textHash }) => [id, textHash]));
  const isCurrent = (embedding: StoredEmbedding | undefined): embedding is StoredEmbedding =>
    embedding !== undefined && embedding.model === modelId && embedding.textHash === current.get(embedding.toolId);

  const uncached = candidates.filter(({ id, textHash }) => textHash !== null && !isCurrent(cache.get(id)));
  for (const embedding of await findEmbeddings(uncached.map(({ id }) => id)))
    if (isCurrent(embedding)) remember(embedding);

  const missing = candidates.filter(({ textHash }) => textHash === null).slice(0, MAX_EMBEDDED_PER_SEARCH);
  if (missing.length > 0) {
    const texts = await embeddingTexts(missing.map(({ id }) => id));
    const { embeddings } = await embedMany({
      model,
      values: texts.map(({ text }) => text),
      abortSignal: signal,
      maxRetries: 1,
    });
    const made = texts.map(({ id, text }, index) => ({
      toolId: id,
      model: modelId,
      textHash: sha256(text),
      vector: Float32Array.from(embeddings[index]),
    }));
    await saveEmbeddings(made);
    for (const embedding of made) {
      current.set(embedding.toolId, embedding.textHash);
      remember(embedding);
    }
  }
  return candidates.flatMap(({ id }) => {
    const embedding = cache.get(id);
    return isCurrent(embedding) ? [embedding] : [];
  });
}

function remember(embedding: StoredEmbedding): void {
  cache.delete(embedding.toolId);
  cache.set(embedding.toolId, embedding);
  // A Map iterates in insertion order: the first key is the one stored longest ago.
  if (cache.size > CACHED_VECTORS) cache.delete(cache.keys().next().value!);
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return -1;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    normA += a[i] * a[i];
    normB += b[i] * b[i];
  }
  return normA && normB ? dot / Math.sqrt(normA * normB) : 0;
}
