-- A tool version's examples (JSON), each run in the sandbox before the version was accepted.
ALTER TABLE "Tool" ADD COLUMN "examples" TEXT NOT NULL DEFAULT '[]';
