-- MCP servers an admin connects for everyone (lib/mcp-servers/): the row without an owner.
-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_McpServer" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "headers" TEXT,
    "headerNames" TEXT NOT NULL DEFAULT '[]',
    "bearer" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_McpServer" ("bearer", "createdAt", "headerNames", "headers", "id", "name", "ownerId", "updatedAt", "url") SELECT "bearer", "createdAt", "headerNames", "headers", "id", "name", "ownerId", "updatedAt", "url" FROM "McpServer";
DROP TABLE "McpServer";
ALTER TABLE "new_McpServer" RENAME TO "McpServer";
CREATE UNIQUE INDEX "McpServer_ownerId_name_key" ON "McpServer"("ownerId", "name");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- The unique index above counts no two NULL owners as equal: everyone's servers' names are unique through this one.
CREATE UNIQUE INDEX "McpServer_everyone_name_key" ON "McpServer"("name") WHERE "ownerId" IS NULL;
