-- A run's claim, new at each claim and takeover: writes made under an earlier claim are refused (fencing).
ALTER TABLE "Run" ADD COLUMN "claim" TEXT;

CREATE UNIQUE INDEX "Run_claim_key" ON "Run"("claim");
