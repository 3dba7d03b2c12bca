import { Health } from "@/lib/contract/responses";
import { answer } from "@/lib/http/route";
import { sandboxPool } from "@/lib/sandbox";

export const dynamic = "force-dynamic";

/** Liveness, and the sandbox's load: threads, busy ones, queued calls, and the threads it had to terminate. */
export function GET() {
  return answer(Health, { status: "ok", sandbox: sandboxPool().stats() });
}
