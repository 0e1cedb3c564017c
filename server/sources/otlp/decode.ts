import generated from "@opentelemetry/otlp-transformer/build/src/generated/root";

// OTLP/HTTP logs bodies (ExportLogsServiceRequest) in JSON or protobuf → flat log records with plain attribute values.
// Protobuf goes through the code generated from the official opentelemetry-proto definitions (shipped by
// @opentelemetry/otlp-transformer); its toObject gives the same camelCase shape as OTLP/JSON.

/** An attribute value: strings, numbers, booleans, and arrays/maps of them (bytes as base64). */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [k: string]: AttrValue };

/** One log record with its resource's and scope's attributes underneath its own. */
export type FlatRecord = {
  index: number;
  timeUnixNano: string | null;
  observedUnixNano: string | null;
  body: AttrValue;
  eventName: string | null;
  attrs: Record<string, AttrValue>;
};

type Message = {
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: object): unknown;
  encode(m: object): { finish(): Uint8Array };
  create(m: object): object;
  fromObject(o: object): object;
};
type Proto = {
  opentelemetry: {
    proto: { collector: { logs: { v1: { ExportLogsServiceRequest: Message; ExportLogsServiceResponse: Message } } } };
  };
};

const logsProto = () => (generated as unknown as Proto).opentelemetry.proto.collector.logs.v1;

/** Decode a protobuf ExportLogsServiceRequest into its OTLP/JSON-shaped object; throws on malformed bytes. */
export function decodeProtobufLogs(bytes: Uint8Array): unknown {
  const { ExportLogsServiceRequest } = logsProto();
  return ExportLogsServiceRequest.toObject(ExportLogsServiceRequest.decode(bytes), {
    longs: String,
    bytes: String,
    defaults: false,
    arrays: true,
  });
}

/** Encode a request object (OTLP/JSON shape) as protobuf; used by tests and senders. */
export function encodeProtobufLogs(request: object): Uint8Array {
  const { ExportLogsServiceRequest } = logsProto();
  return ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(request)).finish();
}

/** An ExportLogsServiceResponse as protobuf bytes. */
export function encodeProtobufResponse(rejected: number, errorMessage: string): Uint8Array {
  const { ExportLogsServiceResponse } = logsProto();
  const body = rejected > 0 || errorMessage ? { partialSuccess: { rejectedLogRecords: rejected, errorMessage } } : {};
  return ExportLogsServiceResponse.encode(ExportLogsServiceResponse.fromObject(body)).finish();
}

/** Decode a protobuf ExportLogsServiceResponse (for tests and clients). */
export function decodeProtobufResponse(bytes: Uint8Array): unknown {
  const { ExportLogsServiceResponse } = logsProto();
  return ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(bytes), {
    longs: String,
    defaults: false,
  });
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** An OTLP AnyValue as a plain value (intValue strings become numbers when they are safe integers). */
export function anyValue(v: unknown, depth = 0): AttrValue {
  if (!isObj(v) || depth > 8) return null;
  if ("stringValue" in v) return typeof v.stringValue === "string" ? v.stringValue : String(v.stringValue ?? "");
  if ("boolValue" in v) return v.boolValue === true || v.boolValue === "true";
  if ("intValue" in v) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if ("doubleValue" in v) {
    const n = Number(v.doubleValue);
    return Number.isFinite(n) ? n : null;
  }
  if ("arrayValue" in v) {
    const values = isObj(v.arrayValue) && Array.isArray(v.arrayValue.values) ? v.arrayValue.values : [];
    return values.slice(0, 1_000).map((x) => anyValue(x, depth + 1));
  }
  if ("kvlistValue" in v) return attributes(isObj(v.kvlistValue) ? v.kvlistValue.values : [], depth + 1);
  if ("bytesValue" in v) return typeof v.bytesValue === "string" ? v.bytesValue : null;
  return null;
}

/** A KeyValue list as a plain object (later keys win). */
export function attributes(list: unknown, depth = 0): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list.slice(0, 1_000))
    if (isObj(kv) && typeof kv.key === "string") out[kv.key] = anyValue(kv.value, depth);
  return out;
}

const nanos = (v: unknown): string | null =>
  typeof v === "string" && /^\d{1,20}$/.test(v)
    ? v
    : typeof v === "number" && Number.isFinite(v) && v >= 0
      ? BigInt(Math.trunc(v)).toString()
      : null;

/** Flatten resourceLogs → scopeLogs → logRecords; throws when the top-level shape is not a logs request. */
export function flattenLogs(request: unknown, maxRecords: number): FlatRecord[] {
  if (!isObj(request)) throw new Error("body must be an ExportLogsServiceRequest object");
  const resourceLogs = request.resourceLogs ?? request.resource_logs ?? [];
  if (!Array.isArray(resourceLogs)) throw new Error("resourceLogs must be an array");
  const out: FlatRecord[] = [];
  for (const rl of resourceLogs) {
    if (!isObj(rl)) continue;
    const resource = attributes(isObj(rl.resource) ? rl.resource.attributes : []);
    for (const sl of Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) {
      if (!isObj(sl)) continue;
      const scope = attributes(isObj(sl.scope) ? sl.scope.attributes : []);
      for (const lr of Array.isArray(sl.logRecords) ? sl.logRecords : []) {
        if (out.length >= maxRecords) throw new Error(`too many log records: at most ${maxRecords} per request`);
        const r = isObj(lr) ? lr : {};
        out.push({
          index: out.length,
          timeUnixNano: nanos(r.timeUnixNano),
          observedUnixNano: nanos(r.observedTimeUnixNano),
          body: anyValue(r.body),
          eventName: typeof r.eventName === "string" && r.eventName ? r.eventName : null,
          attrs: { ...resource, ...scope, ...attributes(r.attributes) },
        });
      }
    }
  }
  return out;
}
