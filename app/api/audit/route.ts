import { AuditPage } from "@/lib/contract/responses";
import { requireIdentity } from "@/lib/http/access";
import { auditPage } from "@/lib/audit/audit-log";
import { AuditQuery } from "@/lib/contract/requests";
import { answer, route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";

export const dynamic = "force-dynamic";

/** The requester's audit log: every tool call with the profile's decision, newest first, a page at a time. */
export const GET = route(async (request) =>
  answer(AuditPage, await auditPage(await requireIdentity(request), readQuery(request, AuditQuery))),
);
