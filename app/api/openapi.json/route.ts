import { openApiDocument } from "@/lib/http/openapi";

export function GET() {
  return Response.json(openApiDocument);
}
