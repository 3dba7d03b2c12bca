-- AlterTable
ALTER TABLE "ToolExecution" ADD COLUMN "status" TEXT NOT NULL DEFAULT 'succeeded';
-- Calls recorded before the column existed: an error means the call failed.
UPDATE "ToolExecution" SET "status" = 'failed' WHERE "error" IS NOT NULL;
