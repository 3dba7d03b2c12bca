import { SeatHealth } from "@/lib/contract/seat";
import { answer } from "@/lib/http/route";
import { seatRoute } from "@/lib/seat/http";

/** SEAT's liveness check; Toolsmith's own, with the sandbox's load, is /api/health. */
export const GET = seatRoute(async () => answer(SeatHealth, { status: "ok" }));
