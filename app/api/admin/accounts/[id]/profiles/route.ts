import { AdminAccount } from "@/lib/contract/responses";
import { AccountProfilesBody } from "@/lib/contract/requests";
import { adminAccountJson, requireAdmin, setProfilesOf } from "@/lib/accounts/admin";
import type { RouteParams } from "@/lib/http/access";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

/** An admin sets the agent profiles an account may use (null: every one). The body is read first, as every JSON route's. */
export const PUT = route(async (request, { params }: RouteParams) => {
  const { profiles } = await readJson(request, AccountProfilesBody);
  await requireAdmin(request);
  return answer(AdminAccount, adminAccountJson(await setProfilesOf((await params).id, profiles)));
});
