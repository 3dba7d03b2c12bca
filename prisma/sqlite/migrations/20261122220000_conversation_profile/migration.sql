-- AlterTable
ALTER TABLE "Conversation" ADD COLUMN "profile" TEXT;
