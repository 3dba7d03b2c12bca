import { ApiTokens, NewApiTokenAnswer } from "@/lib/contract/responses";
import { createApiToken, listApiTokens } from "@/lib/db/queries/api-tokens";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { NewApiToken } from "@/lib/contract/requests";

export const GET = route(async (request) => answer(ApiTokens, await listApiTokens(await requireIdentity(request))));

/** The token is in this answer only: it is stored hashed. */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  const { name } = await readJson(request, NewApiToken);
  return answer(NewApiTokenAnswer, await createApiToken(identity, name), 201);
});
