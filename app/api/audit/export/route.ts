import { stringify } from "csv-stringify/sync";
import { auditOwner } from "@/lib/accounts/admin";
import { AuditEntry } from "@/lib/contract/responses";
import { auditPage } from "@/lib/audit/audit-log";
import { AuditExportQuery } from "@/lib/contract/requests";
import { route } from "@/lib/http/route";
import { readQuery } from "@/lib/http/query";

export const dynamic = "force-dynamic";

const PAGE = 1000;
/** The CSV's columns: the API's fields, in the contract's order. */
const COLUMNS = Object.keys(AuditEntry.shape);

/** The whole audit log (filtered like GET /api/audit) as CSV or JSON Lines, streamed a page at a time. */
export const GET = route(async (request) => {
  const { format, all, ...filters } = readQuery(request, AuditExportQuery);
  const identity = await auditOwner(request, all);
  // The whole log names each entry's owner, in a last column.
  const columns = identity === null ? [...COLUMNS, "owner"] : COLUMNS;
  const encoder = new TextEncoder();
  let cursor: string | undefined;
  let first = true;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { entries, nextCursor } = await auditPage(identity, { ...filters, limit: PAGE, cursor });
      const text =
        format === "csv"
          ? stringify(entries, { header: first, columns })
          : entries.map((entry) => `${JSON.stringify(entry)}\n`).join("");
      first = false;
      if (text) controller.enqueue(encoder.encode(text));
      if (!nextCursor) controller.close();
      cursor = nextCursor ?? undefined;
    },
  });
  const type = format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8";
  return new Response(body, {
    headers: { "content-type": type, "content-disposition": `attachment; filename="toolsmith-audit.${format}"` },
  });
});
