import { requireSignedInAccount } from "@/lib/accounts/passkeys";
import { Passkeys } from "@/lib/contract/responses";
import { listPasskeys } from "@/lib/db/queries/passkeys";
import { answer, route } from "@/lib/http/route";

export const GET = route(async (request) =>
  answer(Passkeys, await listPasskeys(await requireSignedInAccount(request))),
);
