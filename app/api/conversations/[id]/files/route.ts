import { ConversationFiles } from "@/lib/contract/responses";
import { listFiles } from "@/lib/db/queries/files";
import { receiveUploads } from "@/lib/files/upload";
import { fileView, ownerFileUrl } from "@/lib/files/views";
import { refuseForeignWrite, requireConversation, type RouteParams } from "@/lib/http/access";
import { limitRate } from "@/lib/http/rate-limit";
import { answer, route } from "@/lib/http/route";

/** Upload files into the conversation: multipart/form-data, each in a part named `file`. */
export const POST = route(async (request, context: RouteParams) => {
  refuseForeignWrite(request);
  const { conversation, identity } = await requireConversation(request, context);
  const stored = await receiveUploads(request, conversation.id, identity, () =>
    limitRate("uploads", identity, request),
  );
  return answer(ConversationFiles, { files: stored.map((file) => fileView(file, ownerFileUrl)) }, 201);
});

/** The conversation's files: what people uploaded and what its tools wrote. */
export const GET = route(async (request, context: RouteParams) => {
  const { conversation } = await requireConversation(request, context);
  const files = await listFiles(conversation.id);
  return answer(ConversationFiles, { files: files.map((file) => fileView(file, ownerFileUrl)) });
});
