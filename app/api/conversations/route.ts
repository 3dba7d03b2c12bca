import { z } from "zod";
import { createConversation, listConversations } from "@/lib/db/conversations";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

const CreateConversation = z.object({ title: z.string().trim().min(1).max(200).optional() });

export const GET = route(async () => Response.json(await listConversations()));

export const POST = route(async (request) => {
  const { title } = await readJson(request, CreateConversation);
  return Response.json(await createConversation(title), { status: 201 });
});
