-- CreateTable
CREATE TABLE "LibrarianDocument" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "ownerId" TEXT NOT NULL,
    "collection" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "bytes" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE UNIQUE INDEX "LibrarianDocument_ownerId_collection_name_key" ON "LibrarianDocument"("ownerId", "collection", "name");

-- Full-text index of the documents' text (FTS5, external content: the text is stored once, in LibrarianDocument).
-- Porter stemming over unicode61 tokens, so "handling" finds "handle". Triggers keep it in step with the table.
CREATE VIRTUAL TABLE "LibrarianDocumentText" USING fts5("text", content='LibrarianDocument', content_rowid='id', tokenize='porter unicode61');

CREATE TRIGGER "LibrarianDocument_text_insert" AFTER INSERT ON "LibrarianDocument" BEGIN
  INSERT INTO "LibrarianDocumentText"(rowid, "text") VALUES (new."id", new."text");
END;

CREATE TRIGGER "LibrarianDocument_text_delete" AFTER DELETE ON "LibrarianDocument" BEGIN
  INSERT INTO "LibrarianDocumentText"("LibrarianDocumentText", rowid, "text") VALUES ('delete', old."id", old."text");
END;

CREATE TRIGGER "LibrarianDocument_text_update" AFTER UPDATE OF "text" ON "LibrarianDocument" BEGIN
  INSERT INTO "LibrarianDocumentText"("LibrarianDocumentText", rowid, "text") VALUES ('delete', old."id", old."text");
  INSERT INTO "LibrarianDocumentText"(rowid, "text") VALUES (new."id", new."text");
END;
