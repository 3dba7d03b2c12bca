import type { NextConfig } from "next";
import { EVERY_ANSWER_HEADERS } from "./lib/http/answer-headers.mjs";

const nextConfig: NextConfig = {
  // Loaded by Node at run time, not bundled: the sandbox worker imports QuickJS and its .wasm from node_modules.
  serverExternalPackages: ["quickjs-emscripten-core", "@jitl/quickjs-wasmfile-release-sync", "better-sqlite3", "pg"],
  // `npm test` runs tsc on its own; the build need not type-check a second time.
  typescript: { ignoreBuildErrors: true },
  allowedDevOrigins: ["127.0.0.1"],
  poweredByHeader: false,
  // server.mjs has checked TOOLSMITH_PRELOAD_ROUTES (lib/settings/environment.mjs) before Next reads this file.
  experimental: { preloadEntriesOnStart: process.env.TOOLSMITH_PRELOAD_ROUTES !== "0" },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: Object.entries(EVERY_ANSWER_HEADERS).map(([key, value]) => ({ key, value })),
      },
    ];
  },
};

export default nextConfig;
