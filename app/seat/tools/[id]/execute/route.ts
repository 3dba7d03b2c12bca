import { SeatExecution, SeatRun } from "@/lib/contract/seat";
import { ownedTool, type RouteParams } from "@/lib/http/access";
import { answer } from "@/lib/http/route";
import { readSeatBody, seatCaller, seatRoute } from "@/lib/seat/http";
import { seatRun } from "@/lib/seat/wire";
import { callFromApi } from "@/lib/tools/library/stored-tool";
import { apiCallsOf } from "@/lib/accounts/admin";

/** Run the tool's latest version through the one call path (sandbox limits, audit, statistics), in SEAT's words. */
export const POST = seatRoute(async (request, { params }: RouteParams) => {
  const identity = await seatCaller(request);
  const tool = await ownedTool((await params).id, identity);
  const { input_data } = await readSeatBody(request, SeatExecution);
  const calls = await apiCallsOf(identity);
  return answer(SeatRun, seatRun(await callFromApi(tool, input_data, calls, request.signal)));
});
