import { gunzipSync } from "node:zlib";
import type { BatchReply } from "../../ingest/batch";
import type { TelemetryEventInput } from "../../ingest/events";
import { AppError } from "../../errors";
import { env } from "../../env";
import { decodeProtobufLogs, flattenLogs } from "./decode";
import { mapRecord } from "./map";

export const MAX_OTLP_BYTES = 8 * 1024 * 1024;
export const MAX_RECORDS = 5_000;
const MAX_MESSAGES = 5;

/** What an OTLP logs export gave: records seen, events stored, records refused (with the first reasons). */
export type OtlpResult = {
  records: number;
  ignored: number;
  events: number;
  accepted: number;
  rejected: number;
  errorMessage: string;
};

/** The body's bytes, gunzipped when Content-Encoding says gzip (bounded after decompression too). */
export function decodedBody(bytes: Uint8Array, encoding: string | null): Uint8Array {
  const enc = (encoding ?? "").trim().toLowerCase();
  if (enc === "" || enc === "identity") return bytes;
  if (enc !== "gzip")
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", `Content-Encoding ${enc} is not supported (use gzip or none)`);
  try {
    return gunzipSync(bytes, { maxOutputLength: MAX_OTLP_BYTES * 4 });
  } catch {
    throw new AppError("BAD_REQUEST", "body is not valid gzip (or expands past the size limit)");
  }
}

/** Parse an ExportLogsServiceRequest body by media type; a body that cannot be decoded at all is a 400. */
export function parseLogsBody(bytes: Uint8Array, mediaType: string): unknown {
  if (mediaType === "application/x-protobuf" || mediaType === "application/protobuf") {
    try {
      return decodeProtobufLogs(bytes);
    } catch {
      // Fixed text: the decoder's own message (a byte offset, a stack overflow on deep nesting) is internal.
      throw new AppError("BAD_REQUEST", "body is not a valid protobuf ExportLogsServiceRequest");
    }
  }
  if (mediaType === "application/json") {
    try {
      return JSON.parse(Buffer.from(bytes).toString("utf8"));
    } catch {
      throw new AppError("BAD_REQUEST", "body is not valid JSON");
    }
  }
  throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json or application/x-protobuf");
}

/**
 * Map every log record of a decoded request and submit the events; records that fail mapping or ingest are rejected.
 * Each event's cluster is named by the first of `clusterAttributes` its record has (not given: the setting's).
 */
export async function receiveLogs(
  request: unknown,
  submit: (events: TelemetryEventInput[]) => Promise<BatchReply>,
  clusterAttributes: readonly string[] = env().SWITCHYARD_OTLP_CLUSTER_ATTRIBUTES,
): Promise<OtlpResult> {
  let records;
  try {
    records = flattenLogs(request, MAX_RECORDS);
  } catch (err) {
    throw new AppError(
      /too many/.test((err as Error).message) ? "PAYLOAD_TOO_LARGE" : "BAD_REQUEST",
      (err as Error).message,
    );
  }
  const messages: string[] = [];
  let rejected = 0;
  let ignored = 0;
  const events: TelemetryEventInput[] = [];
  const origin: number[] = [];
  for (const r of records) {
    const m = mapRecord(r, clusterAttributes);
    if (m.ignored) ignored++;
    else if (m.error) {
      rejected++;
      if (messages.length < MAX_MESSAGES) messages.push(`record ${m.index}: ${m.error}`);
    } else if (m.event) {
      events.push(m.event);
      origin.push(m.index);
    }
  }
  const reply = events.length ? await submit(events) : { accepted: 0, duplicate: 0, rejected: 0, items: [] };
  // reply.rejected counts every refused event: the reply lists only the first ones.
  rejected += reply.rejected;
  for (const item of reply.items) {
    if (item.status === "rejected" && messages.length < MAX_MESSAGES)
      messages.push(`record ${origin[item.index] ?? "?"}: ${item.error ?? "rejected"}`);
  }
  if (rejected > messages.length) messages.push(`and ${rejected - messages.length} more`);
  return {
    records: records.length,
    ignored,
    events: events.length,
    accepted: reply.accepted + reply.duplicate,
    rejected,
    errorMessage: messages.join("; "),
  };
}
