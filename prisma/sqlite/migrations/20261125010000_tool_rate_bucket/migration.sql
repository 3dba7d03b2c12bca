-- A profile's rate limit of a tool, shared by every instance (used on PostgreSQL; SQLite keeps the table empty).
CREATE TABLE "ToolRateBucket" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "tokens" REAL NOT NULL,
    "updatedAt" REAL NOT NULL,
    "fullAt" REAL NOT NULL
);

CREATE INDEX "ToolRateBucket_fullAt_idx" ON "ToolRateBucket"("fullAt");
