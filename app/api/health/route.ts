import { Health } from "@/lib/contract/responses";
import { answer } from "@/lib/http/route";
import { pythonPool, sandboxPool } from "@/lib/sandbox";

export const dynamic = "force-dynamic";

/** Liveness, and the sandboxes' load: threads and Python processes, busy ones, queued calls, the ones terminated. */
export function GET() {
  return answer(Health, { status: "ok", sandbox: sandboxPool().stats(), python: pythonPool().stats() });
}
