-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Tool" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "lineageId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT,
    "scope" TEXT NOT NULL DEFAULT 'conversation',
    "deprecated" BOOLEAN NOT NULL DEFAULT false,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL,
    "parametersSchema" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'active',
    "runId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Tool_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
-- A tool's versions were (conversationId, name): each gets the id of its first version as its lineage, and its
-- conversation's owner.
INSERT INTO "new_Tool" ("code", "conversationId", "createdAt", "description", "id", "lineageId", "ownerId", "name", "parametersSchema", "runId", "status", "version")
SELECT t."code", t."conversationId", t."createdAt", t."description", t."id",
       (SELECT first."id" FROM "Tool" first WHERE first."conversationId" = t."conversationId" AND first."name" = t."name" ORDER BY first."version" LIMIT 1),
       COALESCE((SELECT c."ownerId" FROM "Conversation" c WHERE c."id" = t."conversationId"), ''),
       t."name", t."parametersSchema", t."runId", t."status", t."version"
FROM "Tool" t;
DROP TABLE "Tool";
ALTER TABLE "new_Tool" RENAME TO "Tool";
CREATE INDEX "Tool_ownerId_scope_status_idx" ON "Tool"("ownerId", "scope", "status");
CREATE INDEX "Tool_conversationId_name_idx" ON "Tool"("conversationId", "name");
CREATE UNIQUE INDEX "Tool_lineageId_version_key" ON "Tool"("lineageId", "version");
CREATE TABLE "new_ToolExecution" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "conversationId" TEXT,
    "source" TEXT NOT NULL DEFAULT 'chat',
    "runId" TEXT,
    "callId" TEXT,
    "toolName" TEXT NOT NULL,
    "toolId" TEXT,
    "input" TEXT NOT NULL,
    "output" TEXT,
    "error" TEXT,
    "status" TEXT NOT NULL DEFAULT 'succeeded',
    "durationMs" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ToolExecution_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation" ("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "ToolExecution_toolId_fkey" FOREIGN KEY ("toolId") REFERENCES "Tool" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_ToolExecution" ("callId", "conversationId", "createdAt", "durationMs", "error", "id", "input", "output", "runId", "status", "toolId", "toolName") SELECT "callId", "conversationId", "createdAt", "durationMs", "error", "id", "input", "output", "runId", "status", "toolId", "toolName" FROM "ToolExecution";
DROP TABLE "ToolExecution";
ALTER TABLE "new_ToolExecution" RENAME TO "ToolExecution";
CREATE INDEX "ToolExecution_conversationId_createdAt_idx" ON "ToolExecution"("conversationId", "createdAt");
CREATE INDEX "ToolExecution_toolId_createdAt_idx" ON "ToolExecution"("toolId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_tokenHash_key" ON "ApiToken"("tokenHash");

-- CreateIndex
CREATE INDEX "ApiToken_ownerId_createdAt_idx" ON "ApiToken"("ownerId", "createdAt");

