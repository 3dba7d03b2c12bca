import type { AuditEntry } from "@/lib/contract/responses";
import { listAudit, type AuditQuery, type AuditRow } from "@/lib/db/queries/audit";
import { accountEmails } from "@/lib/db/queries/accounts";
import { decodeCursor, pageOf } from "@/lib/http/cursor";

/**
 * A page of an identity's audit log, newest first, with the next page's cursor; `null` (an admin's view, the
 * caller checks) is every owner's, each entry with its owner's address or "anonymous".
 */
export async function auditPage(
  identity: string | null,
  { cursor, limit, ...filters }: Omit<AuditQuery, "before"> & { cursor?: string },
) {
  const position = decodeCursor(cursor, ["createdAt", "id"]);
  const rows = await listAudit(identity, {
    ...filters,
    limit: limit + 1,
    before: position && { createdAt: new Date(position.createdAt), id: position.id },
  });
  const { page, nextCursor } = pageOf(rows, limit, (last) => ({
    createdAt: last.createdAt.toISOString(),
    id: last.id,
  }));
  if (identity !== null) return { entries: page.map(auditJson), nextCursor };
  const emails = await accountEmails([...new Set(page.map((row) => row.ownerId))]);
  const entries = page.map((row) => ({ ...auditJson(row), owner: emails.get(row.ownerId) ?? "anonymous" }));
  return { entries, nextCursor };
}

/** An audit entry as the API, the export and the audit page show it. */
export const auditJson = ({ createdAt, decision, outcome, ownerId: _owner, ...entry }: AuditRow): AuditEntry => ({
  time: createdAt.toISOString(),
  ...entry,
  decision: decision as AuditEntry["decision"],
  outcome: outcome as AuditEntry["outcome"],
});
