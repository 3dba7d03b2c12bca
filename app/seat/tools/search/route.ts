import { SeatSearchQuery, SeatTools } from "@/lib/contract/seat";
import { answer } from "@/lib/http/route";
import { readSeatQuery, seatCaller, seatRoute } from "@/lib/seat/http";
import { seatTools } from "@/lib/seat/wire";
import { everyTool } from "@/lib/tools/library/list";

export const dynamic = "force-dynamic";

/** SEAT's search: every tool whose name or description contains `q`, ignoring case (ranked search: /api/tools/search). */
export const GET = seatRoute(async (request) => {
  const identity = await seatCaller(request);
  const { q } = readSeatQuery(request, SeatSearchQuery);
  return answer(SeatTools, await seatTools(await everyTool(identity, { q })));
});
