import type { AuditEntry } from "@/lib/contract/responses";
import { listAudit, type AuditQuery, type AuditRow } from "@/lib/db/queries/audit";
import { decodeCursor, pageOf } from "@/lib/http/cursor";

/** A page of an identity's audit log, newest first, with the next page's cursor. */
export async function auditPage(
  identity: string,
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
  return { entries: page.map(auditJson), nextCursor };
}

/** An audit entry as the API, the export and the audit page show it. */
export const auditJson = ({ createdAt, decision, outcome, ...entry }: AuditRow): AuditEntry => ({
  time: createdAt.toISOString(),
  ...entry,
  decision: decision as AuditEntry["decision"],
  outcome: outcome as AuditEntry["outcome"],
});
