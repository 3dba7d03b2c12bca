import { requireSharedConversation, type ShareParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { exportFormat, exportResponse } from "@/lib/conversations/export";
import { loadTrace } from "@/lib/conversations/trace";
import { sharedFileUrl } from "@/lib/files/views";

export const GET = route(async (request, context: ShareParams) => {
  const conversation = await requireSharedConversation(request, context);
  const format = exportFormat(request);
  return exportResponse(await loadTrace(conversation, sharedFileUrl((await context.params).token)), format);
});
