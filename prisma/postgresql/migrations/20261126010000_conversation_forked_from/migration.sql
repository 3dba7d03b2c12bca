-- The conversation a fork was copied from, to offer its runs for comparison (no foreign key: a fork outlives it).
ALTER TABLE "Conversation" ADD COLUMN "forkedFromId" TEXT;

CREATE INDEX "Conversation_forkedFromId_idx" ON "Conversation"("forkedFromId");
