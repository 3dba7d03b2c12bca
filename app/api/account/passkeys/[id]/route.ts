import { requireSignedInAccount } from "@/lib/accounts/passkeys";
import { PasskeyRename } from "@/lib/contract/requests";
import { Passkey } from "@/lib/contract/responses";
import { deletePasskey, renamePasskey } from "@/lib/db/queries/passkeys";
import type { RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";
import { notFound } from "@/lib/platform/errors";

export const PATCH = route(async (request, { params }: RouteParams) => {
  const { name } = await readJson(request, PasskeyRename);
  const accountId = await requireSignedInAccount(request);
  const renamed = await renamePasskey((await params).id, accountId, name);
  if (!renamed) throw notFound("The passkey");
  return answer(Passkey, renamed);
});

export const DELETE = route(async (request, { params }: RouteParams) => {
  const accountId = await requireSignedInAccount(request);
  if (!(await deletePasskey((await params).id, accountId))) throw notFound("The passkey");
  return new Response(null, { status: 204 });
});
