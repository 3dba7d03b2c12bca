import { openApiDocument } from "@/lib/contract/openapi";

export function GET() {
  return Response.json(openApiDocument);
}
