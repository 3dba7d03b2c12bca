import { SeatTool } from "@/lib/contract/seat";
import { ownedTool, type RouteParams } from "@/lib/http/access";
import { answer } from "@/lib/http/route";
import { seatCaller, seatRoute } from "@/lib/seat/http";
import { seatTools } from "@/lib/seat/wire";
import { withStats } from "@/lib/tools/library/list";
import { removeTool } from "@/lib/tools/library/versions";

/** One tool with its statistics; another identity's is 404, as a missing one. */
export const GET = seatRoute(async (request, { params }: RouteParams) => {
  const tool = await ownedTool((await params).id, await seatCaller(request));
  const [seatTool] = await seatTools(await withStats([tool]));
  return answer(SeatTool, seatTool);
});

/** Every version goes, as DELETE /api/tools/{id} does. */
export const DELETE = seatRoute(async (request, { params }: RouteParams) => {
  const tool = await ownedTool((await params).id, await seatCaller(request));
  await removeTool(tool);
  return new Response(null, { status: 204 });
});
