import type { Metadata } from "next";
import { AuditLog } from "@/components/audit/AuditLog";
import { PageShell } from "@/components/ui/PageShell";
import { memberPageIdentity } from "@/lib/http/access";
import { auditPage } from "@/lib/audit/audit-log";

export const metadata: Metadata = { title: "Audit log · Toolsmith" };

export default async function AuditPage() {
  const identity = await memberPageIdentity();
  const first = identity ? await auditPage(identity, { limit: 50 }) : { entries: [], nextCursor: null };
  return (
    <PageShell current="/audit">
      <AuditLog initial={first} />
    </PageShell>
  );
}
