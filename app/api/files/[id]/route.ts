import { deleteFile } from "@/lib/files/lifecycle";
import { fileResponse } from "@/lib/files/download";
import { refuseForeignWrite, requireFile, type RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";

/** A file's bytes, for its conversation's owner. */
export const GET = route(async (request, context: RouteParams) => {
  const { file } = await requireFile(request, context);
  return fileResponse(file, request);
});

/** Delete a file: its bytes go from the store, and it leaves the workspace of every instance at its next call. */
export const DELETE = route(async (request, context: RouteParams) => {
  refuseForeignWrite(request);
  const { file } = await requireFile(request, context);
  await deleteFile(file);
  return new Response(null, { status: 204 });
});
