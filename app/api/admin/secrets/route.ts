import { Secret, Secrets } from "@/lib/contract/responses";
import { NewSecret } from "@/lib/contract/requests";
import { requireAdmin } from "@/lib/accounts/admin";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { everyoneSecretViews, keepSecret } from "@/lib/secrets/store";

export const dynamic = "force-dynamic";

/** The secrets an admin keeps for everyone; 404 for anyone who is not an admin. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return answer(Secrets, await everyoneSecretViews());
});

/** Keep a secret for everyone's tools (201), or replace the one of that name (200). The body is read first. */
export const POST = route(async (request) => {
  const body = await readJson(request, NewSecret);
  await requireAdmin(request);
  const { secret, created } = await keepSecret(null, body);
  return answer(Secret, secret, created ? 201 : 200);
});
