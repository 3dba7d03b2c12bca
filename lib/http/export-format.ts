import type { ExportFormat } from "@/lib/conversations/export";
import { badRequest } from "@/lib/platform/errors";

export function exportFormat(request: Request): ExportFormat {
  const format = new URL(request.url).searchParams.get("format") ?? "json";
  if (format !== "json" && format !== "md") throw badRequest('format must be "json" or "md".');
  return format;
}
