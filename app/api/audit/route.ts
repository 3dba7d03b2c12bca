import { requireIdentity } from "@/lib/http/access";
import { auditPage } from "@/lib/audit/audit-log";
import { AuditQuery } from "@/lib/contract/requests";
import { route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";

export const dynamic = "force-dynamic";

/** The requester's audit log: every tool call with the profile's decision, newest first, a page at a time. */
export const GET = route(async (request) =>
  Response.json(await auditPage(await requireIdentity(request), readQuery(request, AuditQuery))),
);
