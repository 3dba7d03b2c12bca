-- Retrieval of library tools (lib/retrieval): the words full-text search ranks, and embeddings when a model is set.
-- New versions get the words from the app (split at _ and camelCase); older ones here, split at _ only.
ALTER TABLE "Tool" ADD COLUMN "nameWords" TEXT NOT NULL DEFAULT '';
ALTER TABLE "Tool" ADD COLUMN "parameterWords" TEXT NOT NULL DEFAULT '';
UPDATE "Tool" SET
  "nameWords" = replace("name", '_', ' '),
  "parameterWords" = coalesce((SELECT group_concat(replace("key", '_', ' '), ' ') FROM json_each("Tool"."parametersSchema", '$.properties')), '');

-- CreateTable
CREATE TABLE "ToolEmbedding" (
    "toolId" TEXT NOT NULL PRIMARY KEY,
    "model" TEXT NOT NULL,
    "textHash" TEXT NOT NULL,
    "vector" BLOB NOT NULL,
    CONSTRAINT "ToolEmbedding_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "Tool" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Full-text index of every tool version (FTS5, Porter stemming over unicode61 tokens, like the librarian's). It keeps
-- its own copy of the text: Tool's key is text, and its implicit rowid may change (VACUUM, a table redefinition).
-- Searches join it to Tool by id and filter there (owner, scope, status). Triggers keep it in step with the table.
CREATE VIRTUAL TABLE "ToolText" USING fts5("toolId" UNINDEXED, "nameWords", "description", "parameterWords", tokenize='porter unicode61');
INSERT INTO "ToolText"("toolId", "nameWords", "description", "parameterWords") SELECT "id", "nameWords", "description", "parameterWords" FROM "Tool";

CREATE TRIGGER "Tool_text_insert" AFTER INSERT ON "Tool" BEGIN
  INSERT INTO "ToolText"("toolId", "nameWords", "description", "parameterWords") VALUES (new."id", new."nameWords", new."description", new."parameterWords");
END;

CREATE TRIGGER "Tool_text_delete" AFTER DELETE ON "Tool" BEGIN
  DELETE FROM "ToolText" WHERE "toolId" = old."id";
END;

CREATE TRIGGER "Tool_text_update" AFTER UPDATE OF "nameWords", "description", "parameterWords" ON "Tool" BEGIN
  UPDATE "ToolText" SET "nameWords" = new."nameWords", "description" = new."description", "parameterWords" = new."parameterWords" WHERE "toolId" = old."id";
END;
