import { createDocument } from "zod-openapi";
import { apiRoutes } from "@/lib/contract/routes";

/** The OpenAPI 3.1 description of every /api and /seat route (lib/contract/routes.ts), served at /api/openapi.json and /docs. */
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
  tags: [
    {
      name: "SEAT",
      description:
        "SEAT's API (Self-Extending Agent Toolkit) at its own base URL, /seat: SEAT's paths, field names and bare arrays, FastAPI's `{ detail }` errors, an API token on every call but the index and health.",
    },
  ],
  paths: apiRoutes,
});
