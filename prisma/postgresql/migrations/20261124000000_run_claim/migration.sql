-- A run's claim, new at each claim and takeover: writes made under an earlier claim are refused (fencing). Unique,
-- so that a takeover's UPDATE of it locks the row FOR UPDATE, which waits for the event writes in progress.
ALTER TABLE "Run" ADD COLUMN "claim" TEXT;

CREATE UNIQUE INDEX "Run_claim_key" ON "Run"("claim");
