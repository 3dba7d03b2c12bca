import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

/*
 * An OTLP/HTTP trace receiver on 127.0.0.1, as a collector is: it takes what the OpenTelemetry exporters send to
 * /v1/traces, protobuf (decoded with protobufjs and the OTLP .proto definitions in ./otlp-proto) or JSON, and keeps
 * each request's spans in one shape for the tests.
 */

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client. */
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  status: { code: number; message?: string };
}

export interface ReceivedRequest {
  contentType: string;
  headers: http.IncomingHttpHeaders;
  resource: Record<string, unknown>;
  scope: string;
  spans: ReceivedSpan[];
}

const PROTO_ROOT = fileURLToPath(new URL("./otlp-proto", import.meta.url));

/** The OTLP messages a receiver reads and answers, from the official definitions. */
function otlpMessages() {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_ROOT, target);
  root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
  return {
    request: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest"),
    response: root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse"),
  };
}

export class OtlpReceiver {
  readonly requests: ReceivedRequest[] = [];
  private readonly messages = otlpMessages();
  private server?: http.Server;
  /** The base URL, as OTEL_EXPORTER_OTLP_ENDPOINT takes it. */
  url = "";

  async start(): Promise<void> {
    this.server = http.createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Every span received, in the order it came. */
  spans(): ReceivedSpan[] {
    return this.requests.flatMap((request) => request.spans);
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const contentType = request.headers["content-type"] ?? "";
    if (request.method !== "POST" || request.url !== "/v1/traces") {
      response.writeHead(404).end();
      return;
    }
    if (contentType.startsWith("application/x-protobuf")) {
      const decoded = this.messages.request.toObject(this.messages.request.decode(body), { longs: String });
      this.received(request, contentType, decoded as OtlpRequest);
      response.writeHead(200, { "content-type": "application/x-protobuf" });
      response.end(this.messages.response.encode(this.messages.response.create({})).finish());
    } else if (contentType.startsWith("application/json")) {
      this.received(request, contentType, JSON.parse(body.toString("utf8")) as OtlpRequest);
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    } else {
      response.writeHead(415).end();
    }
  }

  private received(request: http.IncomingMessage, contentType: string, body: OtlpRequest): void {
    for (const { resource, scopeSpans } of body.resourceSpans ?? []) {
      for (const { scope, spans } of scopeSpans ?? []) {
        this.requests.push({
          contentType,
          headers: request.headers,
          resource: attributesOf(resource?.attributes),
          scope: scope?.name ?? "",
          spans: (spans ?? []).map(readSpan),
        });
      }
    }
  }
}

/** The spans of an OTLP/JSON request, such as a run's download, in the receiver's shape. */
export function otlpJsonSpans(body: unknown): ReceivedSpan[] {
  return ((body as OtlpRequest).resourceSpans ?? []).flatMap(({ scopeSpans }) =>
    (scopeSpans ?? []).flatMap(({ spans }) => (spans ?? []).map(readSpan)),
  );
}

/** OTLP's request as both encodings give it: protobufjs's object has bytes for ids, JSON has hex. */
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}
interface OtlpSpan {
  traceId: Uint8Array | string;
  spanId: Uint8Array | string;
  parentSpanId?: Uint8Array | string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: KeyValue[];
  status?: { code?: number; message?: string };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

const hex = (id: Uint8Array | string) => (typeof id === "string" ? id : Buffer.from(id).toString("hex"));

function readSpan(span: OtlpSpan): ReceivedSpan {
  const parent = span.parentSpanId && hex(span.parentSpanId);
  return {
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    ...(parent ? { parentSpanId: parent } : {}),
    name: span.name,
    kind: span.kind ?? 0,
    startTimeUnixNano: BigInt(span.startTimeUnixNano),
    endTimeUnixNano: BigInt(span.endTimeUnixNano),
    attributes: attributesOf(span.attributes),
    status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
  };
}

function attributesOf(list: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
