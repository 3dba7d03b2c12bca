import { Account } from "@/lib/contract/responses";
import { AccountDeletion } from "@/lib/contract/requests";
import { accountView, deleteWholeAccount, requireAccount } from "@/lib/accounts/account";
import { readJson } from "@/lib/http/body";
import { answer, route } from "@/lib/http/route";

export const GET = route(async (request) => {
  const { account } = await requireAccount(request);
  return answer(Account, await accountView(account));
});

export const DELETE = route(async (request) => {
  const { confirm } = await readJson(request, AccountDeletion);
  const { account } = await requireAccount(request);
  await deleteWholeAccount(account, confirm);
  return new Response(null, { status: 204 });
});
