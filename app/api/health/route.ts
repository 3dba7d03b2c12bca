import { sandboxPool } from "@/lib/sandbox";

export const dynamic = "force-dynamic";

/** Liveness, and the sandbox's load: threads, busy ones, queued calls, and the threads it had to terminate. */
export function GET() {
  return Response.json({ status: "ok", sandbox: sandboxPool().stats() });
}
