import fs from "node:fs/promises";
import path from "node:path";
import { notFound } from "@/lib/platform/errors";
import { route } from "@/lib/http/route";

const DIST = path.join(process.cwd(), "node_modules", "swagger-ui-dist");
/** Starts Swagger UI on /api/openapi.json, without the online validator (it would call an outside server). */
const INIT = `window.ui = SwaggerUIBundle({ url: "/api/openapi.json", dom_id: "#swagger-ui", deepLinking: true, validatorUrl: null });`;
const ASSETS: Record<string, { type: string; read: () => Promise<string | Buffer> }> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", read: () => fs.readFile(path.join(DIST, "swagger-ui.css")) },
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    read: () => fs.readFile(path.join(DIST, "swagger-ui-bundle.js")),
  },
  "init.js": { type: "text/javascript; charset=utf-8", read: async () => INIT },
};

export const GET = route(async (_request, { params }: { params: Promise<{ file: string }> }) => {
  const asset = ASSETS[(await params).file];
  if (!asset) throw notFound("The file");
  return new Response(new Uint8Array(Buffer.from(await asset.read())), {
    headers: { "content-type": asset.type, "cache-control": "public, max-age=86400" },
  });
});
