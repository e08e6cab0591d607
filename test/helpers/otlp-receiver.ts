/**
 * An OTLP/HTTP trace receiver for tests: listens on 127.0.0.1 (port 0),
 * accepts `POST /v1/traces` in both encodings the exporters speak
 * (`application/x-protobuf` and `application/json`), decodes the export
 * request into plain spans, and answers as a collector does.
 *
 * The protobuf decoder is written here from the field numbers of
 * opentelemetry-proto (`collector/trace/v1/trace_service.proto`,
 * `trace/v1/trace.proto`, `common/v1/common.proto`), independently of the
 * SDK's encoder, so that a test checks what actually went over the wire.
 */
import type { Server } from "bun";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  startNs: bigint;
  endNs: bigint;
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  /** 0 unset, 1 ok, 2 error. */
  statusCode: number;
  statusMessage: string;
  resource: Record<string, unknown>;
  scope: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Content types of the export requests, in order. */
  contentTypes: string[];
  /** Resolves when `predicate` holds for the spans received so far (polls; rejects after `timeoutMs`). */
  waitFor(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  stop(): void;
}

export function startOtlpReceiver(): OtlpReceiver {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  // Who waits for spans: woken as each export arrives (no polling interval between them).
  const waiters = new Set<() => void>();
  const received = (batch: ReceivedSpan[]) => {
    spans.push(...batch);
    for (const wake of waiters) wake();
  };
  const server: Server<unknown> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      if (request.method !== "POST" || url.pathname !== "/v1/traces")
        return new Response("no", { status: 404 });
      const type = (request.headers.get("content-type") ?? "").split(";")[0]?.trim() ?? "";
      contentTypes.push(type);
      let body = new Uint8Array(await request.arrayBuffer());
      if (request.headers.get("content-encoding") === "gzip") body = Bun.gunzipSync(body);
      try {
        if (type === "application/x-protobuf") {
          received(decodeExportRequest(body));
          return new Response(new Uint8Array(0), { headers: { "content-type": "application/x-protobuf" } });
        }
        if (type === "application/json") {
          received(fromJson(JSON.parse(new TextDecoder().decode(body))));
          return Response.json({});
        }
      } catch (error) {
        return new Response(`cannot decode: ${(error as Error).message}`, { status: 400 });
      }
      return new Response("unsupported content type", { status: 415 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    spans,
    contentTypes,
    async waitFor(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) {
          const seen = spans
            .map((s) => `${s.name} (${s.spanId} <- ${s.parentSpanId || "root"})`)
            .join("\n  ");
          throw new Error(`the spans expected did not arrive within ${timeoutMs} ms; received:\n  ${seen}`);
        }
        // The next export, or the deadline.
        let wake = () => {};
        const arrived = new Promise<void>((resolve) => {
          wake = resolve;
        });
        waiters.add(wake);
        const timer = setTimeout(wake, Math.max(0, deadline - Date.now()) + 1);
        await arrived;
        clearTimeout(timer);
        waiters.delete(wake);
      }
      return spans;
    },
    stop: () => void server.stop(true),
  };
}

// ---- protobuf wire format --------------------------------------------------------------------

interface Field {
  no: number;
  wire: number;
  /** varint and fixed values */
  int?: bigint;
  bytes?: Uint8Array;
}

function* fields(buf: Uint8Array): Generator<Field> {
  let pos = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (pos >= buf.length) throw new Error("truncated varint");
      const byte = buf[pos++] as number;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  while (pos < buf.length) {
    const key = Number(varint());
    const no = key >>> 3;
    const wire = key & 7;
    if (wire === 0) yield { no, wire, int: varint() };
    else if (wire === 1) {
      const value = view.getBigUint64(pos, true);
      pos += 8;
      yield { no, wire, int: value };
    } else if (wire === 2) {
      const length = Number(varint());
      if (pos + length > buf.length) throw new Error("truncated length-delimited field");
      yield { no, wire, bytes: buf.subarray(pos, pos + length) };
      pos += length;
    } else if (wire === 5) {
      const value = view.getUint32(pos, true);
      pos += 4;
      yield { no, wire, int: BigInt(value) };
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

const text = (bytes: Uint8Array | undefined) => new TextDecoder().decode(bytes ?? new Uint8Array(0));
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? new Uint8Array(0)).toString("hex");

/** common.v1.AnyValue */
function anyValue(buf: Uint8Array): unknown {
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1:
        return text(f.bytes);
      case 2:
        return f.int === 1n;
      case 3:
        return Number(BigInt.asIntN(64, f.int ?? 0n));
      case 4: {
        const b = new ArrayBuffer(8);
        new DataView(b).setBigUint64(0, f.int ?? 0n, true);
        return new DataView(b).getFloat64(0, true);
      }
      case 5:
        return [...fields(f.bytes as Uint8Array)]
          .filter((v) => v.no === 1)
          .map((v) => anyValue(v.bytes as Uint8Array));
      case 6:
        return keyValues(
          [...fields(f.bytes as Uint8Array)].filter((v) => v.no === 1).map((v) => v.bytes as Uint8Array),
        );
      case 7:
        return f.bytes;
    }
  }
  return undefined;
}

/** repeated common.v1.KeyValue { key = 1; value = 2 } */
function keyValues(list: Uint8Array[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    let key = "";
    let value: unknown;
    for (const f of fields(kv)) {
      if (f.no === 1) key = text(f.bytes);
      else if (f.no === 2) value = anyValue(f.bytes as Uint8Array);
    }
    out[key] = value;
  }
  return out;
}

/** ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1 } */
export function decodeExportRequest(buf: Uint8Array): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of fields(buf)) {
    if (rs.no !== 1) continue;
    let resource: Record<string, unknown> = {};
    const scopeSpans: Uint8Array[] = [];
    for (const f of fields(rs.bytes as Uint8Array)) {
      // ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2 }
      if (f.no === 1)
        resource = keyValues(
          [...fields(f.bytes as Uint8Array)].filter((a) => a.no === 1).map((a) => a.bytes as Uint8Array),
        );
      else if (f.no === 2) scopeSpans.push(f.bytes as Uint8Array);
    }
    for (const ss of scopeSpans) {
      let scope = "";
      const spanBufs: Uint8Array[] = [];
      for (const f of fields(ss)) {
        // ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2 }
        if (f.no === 1) for (const s of fields(f.bytes as Uint8Array)) if (s.no === 1) scope = text(s.bytes);
        if (f.no === 2) spanBufs.push(f.bytes as Uint8Array);
      }
      for (const sb of spanBufs) out.push(decodeSpan(sb, resource, scope));
    }
  }
  return out;
}

function decodeSpan(buf: Uint8Array, resource: Record<string, unknown>, scope: string): ReceivedSpan {
  const span: ReceivedSpan = {
    traceId: "",
    spanId: "",
    parentSpanId: "",
    traceState: "",
    name: "",
    kind: 0,
    startNs: 0n,
    endNs: 0n,
    attributes: {},
    events: [],
    statusCode: 0,
    statusMessage: "",
    resource,
    scope,
  };
  const attributes: Uint8Array[] = [];
  for (const f of fields(buf)) {
    switch (f.no) {
      case 1:
        span.traceId = hex(f.bytes);
        break;
      case 2:
        span.spanId = hex(f.bytes);
        break;
      case 3:
        span.traceState = text(f.bytes);
        break;
      case 4:
        span.parentSpanId = hex(f.bytes);
        break;
      case 5:
        span.name = text(f.bytes);
        break;
      case 6:
        span.kind = Number(f.int);
        break;
      case 7:
        span.startNs = f.int ?? 0n;
        break;
      case 8:
        span.endNs = f.int ?? 0n;
        break;
      case 9:
        attributes.push(f.bytes as Uint8Array);
        break;
      case 11: {
        // Event { time_unix_nano = 1; name = 2; attributes = 3 }
        let name = "";
        const eventAttributes: Uint8Array[] = [];
        for (const e of fields(f.bytes as Uint8Array)) {
          if (e.no === 2) name = text(e.bytes);
          if (e.no === 3) eventAttributes.push(e.bytes as Uint8Array);
        }
        span.events.push({ name, attributes: keyValues(eventAttributes) });
        break;
      }
      case 15:
        // Status { message = 2; code = 3 }
        for (const s of fields(f.bytes as Uint8Array)) {
          if (s.no === 2) span.statusMessage = text(s.bytes);
          if (s.no === 3) span.statusCode = Number(s.int);
        }
        break;
    }
  }
  span.attributes = keyValues(attributes);
  return span;
}

// ---- OTLP/JSON ---------------------------------------------------------------------------------

interface JsonAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: JsonAnyValue[] };
}
type JsonKeyValue = { key: string; value: JsonAnyValue };

function jsonValue(value: JsonAnyValue): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("arrayValue" in value) return (value.arrayValue?.values ?? []).map(jsonValue);
  return undefined;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));
}

/** The OTLP/JSON encoding: ids are hex strings, enums numbers, 64-bit integers strings. */
function fromJson(body: {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      scope?: { name?: string };
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        traceState?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: JsonKeyValue[];
        events?: { name: string; attributes?: JsonKeyValue[] }[];
        status?: { code?: number; message?: string };
      }[];
    }[];
  }[];
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          traceState: s.traceState ?? "",
          name: s.name,
          kind: s.kind,
          startNs: BigInt(s.startTimeUnixNano),
          endNs: BigInt(s.endTimeUnixNano),
          attributes: jsonAttributes(s.attributes),
          events: (s.events ?? []).map((e) => ({ name: e.name, attributes: jsonAttributes(e.attributes) })),
          statusCode: s.status?.code ?? 0,
          statusMessage: s.status?.message ?? "",
          resource,
          scope: ss.scope?.name ?? "",
        });
      }
    }
  }
  return out;
}
