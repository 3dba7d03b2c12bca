import { createConversation, listConversations } from "@/lib/db/conversations";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { NewConversation } from "@/lib/http/contract";
import { route } from "@/lib/http/errors";
import { limitRate } from "@/lib/http/rate-limit";

export const dynamic = "force-dynamic";


export const GET = route(async (request) => Response.json(await listConversations(await requireIdentity(request))));

export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  limitRate("conversations", identity, request);
  const { title } = await readJson(request, NewConversation);
  return Response.json(await createConversation(identity, title), { status: 201 });
});
