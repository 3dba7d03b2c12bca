-- The tools a version calls with tools.call (register_tool's uses).
ALTER TABLE "Tool" ADD COLUMN "uses" TEXT NOT NULL DEFAULT '[]';
