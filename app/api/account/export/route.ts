import { requireAccount } from "@/lib/accounts/account";
import { exportEverything } from "@/lib/conversations/export";
import { route } from "@/lib/http/route";

export const GET = route(async (request) => exportEverything((await requireAccount(request)).account.id));
