import { requireAccount, revokeSession } from "@/lib/accounts/account";
import type { RouteParams } from "@/lib/http/access";
import { route } from "@/lib/http/route";

export const DELETE = route(async (request, { params }: RouteParams) => {
  const { account } = await requireAccount(request);
  await revokeSession(account.id, (await params).id);
  return new Response(null, { status: 204 });
});
