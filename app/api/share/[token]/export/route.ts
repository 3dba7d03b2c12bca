import { requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { route } from "@/lib/http/errors";
import { exportFormat } from "@/lib/http/export-format";
import { exportResponse } from "@/lib/trace/export";
import { loadTrace } from "@/lib/trace/load";

export const GET = route(async (request, context: ShareParams) => {
  const conversation = await requireSharedConversation(context);
  const format = exportFormat(request);
  return exportResponse(await loadTrace(conversation), format);
});
