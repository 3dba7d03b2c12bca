import { ToolTotals } from "@/lib/contract/responses";
import { ownerToolTotals } from "@/lib/db/queries/executions";
import { requireIdentity } from "@/lib/http/access";
import { answer, route } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** Totals over the requester's tools and every call of them. */
export const GET = route(async (request) => answer(ToolTotals, await ownerToolTotals(await requireIdentity(request))));
