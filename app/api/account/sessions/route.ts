import { AccountSessions } from "@/lib/contract/responses";
import { requireAccount, sessionsView } from "@/lib/accounts/account";
import { answer, route } from "@/lib/http/route";

export const GET = route(async (request) => {
  const { account, sessionId } = await requireAccount(request);
  return answer(AccountSessions, await sessionsView(account.id, sessionId));
});
