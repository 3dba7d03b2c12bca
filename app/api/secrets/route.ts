import { Secret, Secrets } from "@/lib/contract/responses";
import { NewSecret } from "@/lib/contract/requests";
import { requireIdentity } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { keepSecret, secretViews } from "@/lib/secrets/store";

/** Your secrets and those an admin keeps for everyone: names, hosts and when last used, never a value. */
export const GET = route(async (request) => answer(Secrets, await secretViews(await requireIdentity(request))));

/** Keep a secret (201), or replace the value and hosts of yours of that name (200); the value is never answered. */
export const POST = route(async (request) => {
  const identity = await requireIdentity(request);
  const { secret, created } = await keepSecret(identity, await readJson(request, NewSecret));
  return answer(Secret, secret, created ? 201 : 200);
});
