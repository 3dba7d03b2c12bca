import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from "@opentelemetry/api";
import { OTLPTraceExporter as JsonTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtobufTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from "@opentelemetry/resources";
import {
  BatchSpanProcessor,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type IdGenerator,
  type SpanProcessor,
} from "@opentelemetry/sdk-trace";
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { listRunEvents } from "@/lib/db/queries/events";
import { spanIdOf, traceIdOf } from "@/lib/platform/trace-ids";
import { toolLanguagesOfRun } from "@/lib/db/queries/executions";
import { listMessages } from "@/lib/db/queries/messages";
import { processWide } from "@/lib/platform/process-wide";
import { modelConfig, telemetryConfig } from "@/lib/settings/config";
import { applyEvents, emptyTrace } from "@/lib/trace/state";
import { modelProvider, runSpans, type SpanDescription } from "./spans";

/*
 * Runs as OpenTelemetry traces, built from their stored events once they have finished (spans.ts): sent to the OTLP
 * receiver OTEL_EXPORTER_OTLP_ENDPOINT names, through the SDK's exporters, and downloaded from a run's menu as OTLP
 * JSON. Both give a run the same trace and span ids, derived from the run's id.
 */

/** Runs finishing within this long of each other go in one export request. */
const EXPORT_DELAY_MS = 1_000;

/** The trace of one run of the conversation as OTLP JSON (an ExportTraceServiceRequest); undefined for no such run. */
export async function runOtlpJson(conversationId: string, runId: string): Promise<string | undefined> {
  const spans = await loadRunSpans(conversationId, runId);
  return spans && otlpJson(runId, spans);
}

/** A run's spans as OTLP JSON, with the ids its export gives them. */
export async function otlpJson(runId: string, spans: SpanDescription[]): Promise<string> {
  const collected = new InMemorySpanExporter();
  const ids = new RunIds();
  const provider = tracerProvider(ids, new SimpleSpanProcessor({ exporter: collected }));
  record(provider, ids, runId, spans);
  await provider.forceFlush();
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(collected.getFinishedSpans()));
}

/**
 * Send a finished run's trace to the OTLP receiver, in the background, when one is configured: read from the store,
 * so call it once the run's events are stored. A failure is logged; the run is not concerned.
 */
export function exportFinishedRun(conversationId: string, runId: string): void {
  const exporting = exportingProvider();
  if (!exporting) return;
  const pending = loadRunSpans(conversationId, runId)
    .then((spans) => spans && record(exporting.provider, exporting.ids, runId, spans))
    .catch((error) => console.error(`Could not export run ${runId} to OpenTelemetry:`, error))
    .finally(() => exporting.pending.delete(pending));
  exporting.pending.add(pending);
}

/** For a stop of the server: the runs being exported are, and what is queued is sent. */
export async function flushTelemetry(): Promise<void> {
  const exporting = exportingProvider();
  if (!exporting) return;
  await Promise.all(exporting.pending);
  await exporting.provider.forceFlush().catch((error) => console.error("Could not send the last traces:", error));
}

interface Exporting {
  provider: TracerProvider;
  ids: RunIds;
  /** Exports reading their run's events. */
  pending: Set<Promise<unknown>>;
}

/** The process's exporting provider, when an endpoint is set. The exporters read the standard variables themselves. */
function exportingProvider(): Exporting | undefined {
  const settings = telemetryConfig();
  if (!settings.enabled) return undefined;
  return processWide("telemetryExport", () => {
    const exporter = settings.protocol === "http/json" ? new JsonTraceExporter() : new ProtobufTraceExporter();
    const ids = new RunIds();
    const processor = new BatchSpanProcessor({ exporter, scheduledDelayMillis: EXPORT_DELAY_MS });
    return { provider: tracerProvider(ids, processor), ids, pending: new Set() };
  });
}

function tracerProvider(ids: RunIds, processor: SpanProcessor): TracerProvider {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: telemetryConfig().serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  return new TracerProvider({ resource, idGenerator: ids, spanProcessors: [processor] });
}

/** The run's spans, from its stored events; undefined when the conversation has no such run. */
async function loadRunSpans(conversationId: string, runId: string): Promise<SpanDescription[] | undefined> {
  const events = await listRunEvents(conversationId, runId);
  const run = applyEvents(
    emptyTrace,
    events.map(({ seq, event }) => ({ ...event, id: seq })),
  ).runs.find((found) => found.runId === runId);
  if (!run) return undefined;
  const { captureContent } = telemetryConfig();
  const [userMessage, toolLanguages] = await Promise.all([
    captureContent
      ? listMessages(conversationId).then(
          (messages) => messages.find((message) => message.runId === runId && message.role === "user")?.content,
        )
      : undefined,
    toolLanguagesOfRun(conversationId, runId),
  ]);
  const provider = modelProvider(modelConfig());
  const planChanges = events.flatMap(({ event }) =>
    event.type === "plan_created" || event.type === "plan_updated" ? [event] : [],
  );
  return runSpans(run, { conversationId, provider, captureContent, userMessage, toolLanguages, planChanges });
}

/** Make the SDK's spans of a run, each with its own times; synchronous, so the ids given are the span's own. */
function record(provider: TracerProvider, ids: RunIds, runId: string, descriptions: SpanDescription[]): void {
  const tracer = provider.getTracer("toolsmith");
  const spans = new Map<string, Span>();
  for (const description of descriptions) {
    ids.use(runId, description.key);
    const parent = description.parent === undefined ? undefined : spans.get(description.parent);
    const span = tracer.startSpan(
      description.name,
      {
        kind: description.kind === "client" ? SpanKind.CLIENT : SpanKind.INTERNAL,
        // Dates, not numbers: the SDK reads a number below the process's start as a performance.now() reading.
        startTime: new Date(description.startTime),
        attributes: description.attributes,
      },
      parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
    );
    if (description.error) {
      span.setAttribute(ATTR_ERROR_TYPE, description.error.type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: description.error.message });
    }
    for (const event of description.events ?? []) span.addEvent(event.name, event.attributes, new Date(event.time));
    spans.set(description.key, span);
  }
  // The children end before their parent, as they did.
  for (const description of descriptions.toReversed()) spans.get(description.key)!.end(new Date(description.endTime));
}

/**
 * Ids derived from the run's id and each span's key, rather than random: the trace sent and the one downloaded are
 * the same, and a receiver given both keeps one.
 */
class RunIds implements IdGenerator {
  private traceId = "";
  private spanId = "";

  use(runId: string, key: string): void {
    this.traceId = traceIdOf(runId);
    this.spanId = spanIdOf(runId, key);
  }

  generateTraceId(): string {
    return this.traceId;
  }

  generateSpanId(): string {
    return this.spanId;
  }
}
