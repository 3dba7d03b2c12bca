-- Secrets tools use by name (lib/secrets/), and the secrets each tool version names.
ALTER TABLE "Tool" ADD COLUMN "secrets" TEXT NOT NULL DEFAULT '[]';

-- CreateTable
CREATE TABLE "Secret" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT,
    "name" TEXT NOT NULL,
    "hosts" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "lastUsedAt" DATETIME
);
CREATE UNIQUE INDEX "Secret_ownerId_name_key" ON "Secret"("ownerId", "name");

-- The unique index above counts no two NULL owners as equal: everyone's secrets' names are unique through this one.
CREATE UNIQUE INDEX "Secret_everyone_name_key" ON "Secret"("name") WHERE "ownerId" IS NULL;
