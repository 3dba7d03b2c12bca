import { AdminAccounts } from "@/lib/contract/responses";
import { adminAccountJson, requireAdmin } from "@/lib/accounts/admin";
import { listAccounts } from "@/lib/db/queries/accounts";
import { answer, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Every account of this server, for its admins (TOOLSMITH_ADMIN_EMAILS); 404 for anyone else. */
export const GET = route(async (request) => {
  await requireAdmin(request);
  return answer(AdminAccounts, (await listAccounts()).map(adminAccountJson));
});
