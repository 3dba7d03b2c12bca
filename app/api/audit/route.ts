import { AuditPage } from "@/lib/contract/responses";
import { auditOwner } from "@/lib/accounts/admin";
import { auditPage } from "@/lib/audit/audit-log";
import { AuditQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";

export const dynamic = "force-dynamic";

/**
 * The requester's audit log: every tool call with the profile's decision, newest first, a page at a time. An
 * admin's `?all=1`: every owner's.
 */
export const GET = route(async (request) => {
  const { all, ...query } = readQuery(request, AuditQuery);
  return answer(AuditPage, await auditPage(await auditOwner(request, all), query));
});
