import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { tsconfigPaths: true },
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // Every answer of the app's API, and every event, is checked against lib/contract.
    setupFiles: ["tests/support/check-contract.ts"],
    // Two files at once, of either project (the projects run side by side): one integration file alone, with its
    // production server, kept about 1.2 of this machine's 2 cores busy.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: "sqlite",
          include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
          globalSetup: ["tests/support/sqlite-template.ts"],
        },
      },
      {
        // The integration suite again, on a real PostgreSQL (tests/support/postgres.ts), plus the scale-out tests.
        extends: true,
        test: {
          name: "postgresql",
          include: ["tests/integration/**/*.test.ts", "tests/scale-out/**/*.test.ts"],
          // The Python sandbox, run_python, Claude's dialect, the MCP client and the token script's arguments do not depend on the
          // database (the token queries are the app's own, which run here): once, in the SQLite pass, is enough.
          exclude: [
            "tests/integration/anthropic.test.ts",
            "tests/integration/token-script.test.ts",
            "tests/integration/python-escapes.test.ts",
            "tests/integration/python-workspace.test.ts",
            // The model dialects are the model's side; their runs' storage is the same as every run's.
            "tests/integration/model-dialects.test.ts",
            "tests/integration/python-runs.test.ts",
            "tests/integration/run-python.test.ts",
            // The MCP client talks to MCP servers; the app's /api/mcp it also reaches runs on both in mcp.test.ts.
            "tests/integration/mcp-client.test.ts",
          ],
          env: { TEST_DATABASE: "postgresql" },
          globalSetup: ["tests/support/postgres.ts", "tests/support/postgres-template.ts"],
        },
      },
    ],
  },
});
