-- CreateTable
CREATE TABLE "KeyValue" (
    "namespace" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,
    "expiresAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("namespace", "key")
);
