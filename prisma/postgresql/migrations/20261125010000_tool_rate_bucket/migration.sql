-- A profile's rate limit of a tool, shared by every instance: one token bucket per profile, tool, limit and identity.
CREATE TABLE "ToolRateBucket" (
    "key" TEXT NOT NULL,
    "tokens" DOUBLE PRECISION NOT NULL,
    "updatedAt" DOUBLE PRECISION NOT NULL,
    "fullAt" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "ToolRateBucket_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "ToolRateBucket_fullAt_idx" ON "ToolRateBucket"("fullAt");
