import { SeatListQuery, SeatNewTool, SeatTools } from "@/lib/contract/seat";
import { startGeneration } from "@/lib/agent/tool-writer-response";
import { apiCodeCallsOf } from "@/lib/accounts/admin";
import { answer } from "@/lib/http/route";
import { readSeatBody, readSeatQuery, seatCaller, seatRoute } from "@/lib/seat/http";
import { createdSeatTool, seatTools } from "@/lib/seat/wire";
import { everyTool } from "@/lib/tools/library/list";

export const dynamic = "force-dynamic";

/** Every tool of the caller, by name, as a bare array; `?status=deprecated` are those no longer offered. */
export const GET = seatRoute(async (request) => {
  const identity = await seatCaller(request);
  const { status } = readSeatQuery(request, SeatListQuery);
  return answer(SeatTools, await seatTools(await everyTool(identity, { status })));
});

/** SEAT's create: the model writes the tool (Python by default), checked and tested as /api/tools/generate does. */
export const POST = seatRoute(async (request) => {
  const identity = await seatCaller(request);
  const body = await readSeatBody(request, SeatNewTool);
  return createdSeatTool(startGeneration(request, identity, body, await apiCodeCallsOf(identity)));
});
