-- MCP servers an admin connects for everyone (lib/mcp-servers/): the row without an owner.
ALTER TABLE "McpServer" ALTER COLUMN "ownerId" DROP NOT NULL;

-- The unique index on ("ownerId", "name") counts no two NULL owners as equal: everyone's servers' names are unique
-- through this one.
CREATE UNIQUE INDEX "McpServer_everyone_name_key" ON "McpServer"("name") WHERE "ownerId" IS NULL;
