-- Tool code in Python beside JavaScript: each version says its language; every version before was JavaScript.
ALTER TABLE "Tool" ADD COLUMN "language" TEXT NOT NULL DEFAULT 'javascript';
