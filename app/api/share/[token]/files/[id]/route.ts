import { findFile } from "@/lib/db/queries/files";
import { fileResponse } from "@/lib/files/download";
import { requireSharedConversation } from "@/lib/http/access";
import { route } from "@/lib/http/route";
import { notFound } from "@/lib/platform/errors";

type Params = { params: Promise<{ token: string; id: string }> };

/** A shared conversation's file, read-only, for whoever the link lets in; it stops with the link. */
export const GET = route(async (request, context: Params) => {
  const conversation = await requireSharedConversation(request, context);
  const file = await findFile((await context.params).id);
  if (!file || file.conversationId !== conversation.id) throw notFound("The file");
  return fileResponse(file, request);
});
