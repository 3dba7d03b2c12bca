import { requireConversation } from "@/lib/http/access";
import { notFound } from "@/lib/platform/errors";
import { route } from "@/lib/http/route";
import { runOtlpJson } from "@/lib/telemetry/export";

type RunParams = { params: Promise<{ id: string; runId: string }> };

export const GET = route(async (request, context: RunParams) => {
  const { conversation } = await requireConversation(request, context);
  const { runId } = await context.params;
  const trace = await runOtlpJson(conversation.id, runId);
  if (trace === undefined) throw notFound("The run");
  return new Response(trace, {
    headers: {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="run-${runId.replace(/[^\w-]/g, "")}.otlp.json"`,
    },
  });
});
