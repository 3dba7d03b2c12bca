-- CreateTable
CREATE TABLE "ToolAudit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "conversationId" TEXT,
    "runId" TEXT,
    "tool" TEXT NOT NULL,
    "profile" TEXT,
    "decision" TEXT NOT NULL,
    "reason" TEXT,
    "inputHash" TEXT NOT NULL,
    "inputSize" INTEGER NOT NULL,
    "outcome" TEXT,
    "durationMs" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "ToolAudit_ownerId_createdAt_idx" ON "ToolAudit"("ownerId", "createdAt");
