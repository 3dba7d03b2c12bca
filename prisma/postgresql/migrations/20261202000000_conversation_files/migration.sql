-- The files of conversations (uploads and what tools write) and, without an S3 bucket, their bytes.
-- CreateTable
CREATE TABLE "ConversationFile" (
    "id" TEXT NOT NULL,
    "conversationId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "size" INTEGER NOT NULL,
    "mimeType" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "runId" TEXT,
    "callId" TEXT,
    "toolName" TEXT,
    "messageId" TEXT,
    "preview" TEXT,
    "blobId" TEXT NOT NULL,
    "storage" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ConversationFile_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "FileChunk" (
    "blobId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" TEXT NOT NULL,

    CONSTRAINT "FileChunk_pkey" PRIMARY KEY ("blobId","seq")
);

-- CreateIndex
CREATE UNIQUE INDEX "ConversationFile_blobId_key" ON "ConversationFile"("blobId");

-- CreateIndex
CREATE INDEX "ConversationFile_ownerId_idx" ON "ConversationFile"("ownerId");

-- CreateIndex
CREATE INDEX "ConversationFile_messageId_idx" ON "ConversationFile"("messageId");

-- CreateIndex
CREATE UNIQUE INDEX "ConversationFile_conversationId_path_key" ON "ConversationFile"("conversationId", "path");

-- AddForeignKey
ALTER TABLE "ConversationFile" ADD CONSTRAINT "ConversationFile_conversationId_fkey" FOREIGN KEY ("conversationId") REFERENCES "Conversation"("id") ON DELETE CASCADE ON UPDATE CASCADE;

