-- Reviews of traces: annotations, verdicts, reviewers' numbers and display names (lib/review/).
-- CreateTable
CREATE TABLE "Annotation" (
    "id" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "eventId" INTEGER NOT NULL,
    "label" TEXT NOT NULL,
    "note" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Annotation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Verdict" (
    "id" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "runId" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "verdict" TEXT NOT NULL,
    "note" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Verdict_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Reviewer" (
    "conversationId" TEXT NOT NULL,
    "identityId" TEXT NOT NULL,
    "number" INTEGER NOT NULL,

    CONSTRAINT "Reviewer_pkey" PRIMARY KEY ("conversationId","identityId")
);

-- CreateTable
CREATE TABLE "DisplayName" (
    "identityId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DisplayName_pkey" PRIMARY KEY ("identityId")
);

-- CreateIndex
CREATE INDEX "Annotation_conversationId_idx" ON "Annotation"("conversationId");

-- CreateIndex
CREATE INDEX "Verdict_conversationId_verdict_idx" ON "Verdict"("conversationId", "verdict");

-- CreateIndex
CREATE UNIQUE INDEX "Verdict_runId_authorId_key" ON "Verdict"("runId", "authorId");

-- CreateIndex
CREATE UNIQUE INDEX "Reviewer_conversationId_number_key" ON "Reviewer"("conversationId", "number");

-- AddForeignKey
ALTER TABLE "Annotation" ADD CONSTRAINT "Annotation_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Verdict" ADD CONSTRAINT "Verdict_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Reviewer" ADD CONSTRAINT "Reviewer_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
