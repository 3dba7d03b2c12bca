-- A run's lease: the instance executing it renews leaseUntil; past it, another instance takes the run over.
ALTER TABLE "Run" ADD COLUMN "instanceId" TEXT;
ALTER TABLE "Run" ADD COLUMN "leaseUntil" DATETIME;
ALTER TABLE "Run" ADD COLUMN "cancelRequested" BOOLEAN NOT NULL DEFAULT false;

CREATE INDEX "Run_status_leaseUntil_idx" ON "Run"("status", "leaseUntil");

-- The claim: at most one running run per conversation, whichever instance inserts it.
CREATE UNIQUE INDEX "Run_one_running_per_conversation" ON "Run"("conversationId") WHERE "status" = 'running';
