import { createDocument } from "zod-openapi";
import { apiRoutes } from "@/lib/contract/routes";

/** The OpenAPI 3.1 description of every /api route (lib/contract/routes.ts), served at /api/openapi.json and /docs. */
export const openApiDocument = createDocument({
  openapi: "3.1.0",
  info: {
    title: "Toolsmith API",
    version: "1.0.0",
    description:
      "Conversations with an agent that builds its own tools, and the library of those tools. Browsers authenticate with their identity cookie; scripts with `Authorization: Bearer <token>` (create one at /settings).",
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      cookie: { type: "apiKey", in: "cookie", name: "toolsmith_id" },
    },
  },
  security: [{ bearer: [] }, { cookie: [] }],
  paths: apiRoutes,
});
