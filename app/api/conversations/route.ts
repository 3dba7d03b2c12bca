import { z } from "zod";
import { createConversation, listConversations } from "@/lib/db/conversations";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";
import { limitRate } from "@/lib/http/rate-limit";

export const dynamic = "force-dynamic";

const CreateConversation = z.object({ title: z.string().trim().min(1).max(200).optional() });

export const GET = route(async (request) => Response.json(await listConversations(await requireIdentity(request))));

export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  limitRate("conversations", identity, request);
  const { title } = await readJson(request, CreateConversation);
  return Response.json(await createConversation(identity, title), { status: 201 });
});
