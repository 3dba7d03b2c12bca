import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AuditLog } from "@/components/audit/AuditLog";
import { PageShell } from "@/components/ui/PageShell";
import { adminOf } from "@/lib/accounts/admin";
import { memberPageIdentity } from "@/lib/http/access";
import { auditPage } from "@/lib/audit/audit-log";

export const metadata: Metadata = { title: "Audit log · Toolsmith" };

/** The visitor's audit log; `?all=1`, for admins only (404 for anyone else), every account's. */
export default async function AuditPage({ searchParams }: { searchParams: Promise<{ all?: string }> }) {
  const identity = await memberPageIdentity();
  const all = (await searchParams).all === "1";
  if (all && !(await adminOf(identity))) notFound();
  const owner = all ? null : identity;
  const first = owner !== undefined ? await auditPage(owner, { limit: 50 }) : { entries: [], nextCursor: null };
  return (
    <PageShell current={all ? "/admin" : "/audit"}>
      <AuditLog key={String(all)} initial={first} all={all} />
    </PageShell>
  );
}
