import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Integration files each start a production server; run files one at a time on this 2-core machine.
    fileParallelism: false,
  },
});
