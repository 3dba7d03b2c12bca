-- Retrieval of library tools (lib/retrieval): the words full-text search ranks, and embeddings when a model is set.
-- New versions get the words from the app (split at _ and camelCase); older ones here, split at _ only.
ALTER TABLE "Tool" ADD COLUMN "nameWords" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Tool" ADD COLUMN "parameterWords" TEXT NOT NULL DEFAULT '';
UPDATE "Tool" SET
  "nameWords" = replace("name", '_', ' '),
  "parameterWords" = coalesce((
    SELECT string_agg(replace(key, '_', ' '), ' ')
    FROM jsonb_object_keys(CASE WHEN jsonb_typeof("parametersSchema"::jsonb -> 'properties') = 'object'
                                THEN "parametersSchema"::jsonb -> 'properties' ELSE '{}'::jsonb END) AS key), '');

-- CreateTable
CREATE TABLE "ToolEmbedding" (
    "toolId" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "vector" BYTEA NOT NULL,

    CONSTRAINT "ToolEmbedding_pkey" PRIMARY KEY ("toolId")
);

-- AddForeignKey
ALTER TABLE "ToolEmbedding" ADD CONSTRAINT "ToolEmbedding_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "Tool"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Full-text index (SQLite uses FTS5): English stemming, the name's words weighted over the parameters' over the
-- description's. lib/db/queries/tool-search.ts writes the same expression, so that the planner uses this index.
CREATE INDEX "Tool_text_search" ON "Tool" USING GIN ((
  setweight(to_tsvector('english', "nameWords"), 'A') ||
  setweight(to_tsvector('english', "parameterWords"), 'B') ||
  setweight(to_tsvector('english', "description"), 'C')));
