-- Calls that went wrong, kept with the output they should have given: the next version of the tool must pass them.
ALTER TABLE "Tool" ADD COLUMN "failingExamples" TEXT NOT NULL DEFAULT '[]';
