import { parseEvent, type ParseResult, type TelemetryEvent } from "./events";
import { AppError } from "../errors";

export const MAX_EVENTS = 10_000;
export const MAX_BYTES = 8 * 1024 * 1024;

export type ItemResult = {
  index: number;
  line?: number;
  id: string | null;
  status: "accepted" | "duplicate" | "rejected";
  error?: string;
  /** Set when a sender can act on the rejection: `unknown_prefix` (re-send with full lists), `invalid_prefix`. */
  code?: string;
};

/**
 * An ingest reply: the totals, and the items it lists (summarize says which). errors_truncated: how many rejected
 * items it leaves out (absent when none is).
 */
export type BatchReply = {
  accepted: number;
  duplicate: number;
  rejected: number;
  items: ItemResult[];
  errors_truncated?: number;
};

/** How many rejected items a reply lists with their error text. */
export const MAX_ITEM_ERRORS = 100;

/** `raw`: the line as sent, kept when `value` holds lifted hash lists (lift-hashes.ts) for a parse that needs it. */
export type Decoded = { index: number; line?: number; value?: unknown; error?: string; raw?: string };

/** The media type of a Content-Type header, lower-cased, without parameters. */
export function mediaType(header: string | null): string {
  return (header ?? "").split(";")[0]!.trim().toLowerCase();
}

const NDJSON = new Set(["application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"]);

/** True for the media types /api/ingest accepts. */
export function isIngestMediaType(type: string): boolean {
  return type === "application/json" || NDJSON.has(type);
}

/**
 * Split a body into items: NDJSON per non-blank line (a bad line is its own error) or a JSON array. `lift`: parses an
 * NDJSON line its own way, or returns null for JSON.parse to (the item then keeps the line as `raw`).
 */
export function decodeBody(
  text: string,
  contentType: string,
  lift?: (line: string) => Record<string, unknown> | null,
): Decoded[] {
  if (NDJSON.has(contentType)) {
    const out: Decoded[] = [];
    const lines = text.split("\n");
    for (let i = 0; i < lines.length; i++) {
      const raw = lines[i]!.trim();
      if (raw === "") continue;
      if (out.length >= MAX_EVENTS)
        throw new AppError("PAYLOAD_TOO_LARGE", `too many events: at most ${MAX_EVENTS} per request`);
      const lifted = lift?.(raw);
      if (lifted) {
        out.push({ index: out.length, line: i + 1, value: lifted, raw });
        continue;
      }
      try {
        out.push({ index: out.length, line: i + 1, value: JSON.parse(raw) });
      } catch {
        out.push({ index: out.length, line: i + 1, error: `line ${i + 1}: not valid JSON` });
      }
    }
    return out;
  }
  if (contentType === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AppError(
        "BAD_REQUEST",
        "body is not valid JSON (send a JSON array, or NDJSON as application/x-ndjson)",
      );
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    if (list.length > MAX_EVENTS)
      throw new AppError("PAYLOAD_TOO_LARGE", `too many events: ${list.length} (at most ${MAX_EVENTS} per request)`);
    return list.map((value, index) => ({ index, value }));
  }
  throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/x-ndjson or application/json");
}

/**
 * Validate each decoded item on its own; returns the valid events and a result slot per item. `parse`: how an item's
 * value becomes an event (default parseEvent; lift-hashes.ts's for items decoded with lifted lists).
 */
export function validateItems(
  items: Decoded[],
  parse: (item: Decoded) => ParseResult = (item) => parseEvent(item.value),
): { events: TelemetryEvent[]; slots: number[]; results: ItemResult[] } {
  const events: TelemetryEvent[] = [];
  const slots: number[] = [];
  const results: ItemResult[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const id = idOf(item.value);
    let error: string | undefined;
    if (item.error) error = item.error;
    else {
      const parsed = parse(item);
      if (parsed.ok) {
        events.push(parsed.event);
        slots.push(item.index);
      } else error = item.line === undefined ? parsed.error : `line ${item.line}: ${parsed.error}`;
    }
    // One object per item, its keys in the reply's order (index, line, id, status, error).
    results[i] =
      item.line === undefined
        ? error === undefined
          ? { index: item.index, id, status: "accepted" }
          : { index: item.index, id, status: "rejected", error }
        : error === undefined
          ? { index: item.index, line: item.line, id, status: "accepted" }
          : { index: item.index, line: item.line, id, status: "rejected", error };
  }
  return { events, slots, results };
}

function idOf(value: unknown): string | null {
  const id = typeof value === "object" && value !== null ? (value as { id?: unknown }).id : undefined;
  return typeof id === "string" ? id.slice(0, 128) : null;
}

/**
 * Totals for a list of item results, and the items a reply lists: every accepted and duplicate item and the first
 * MAX_ITEM_ERRORS rejected ones, so a body of junk lines cannot get a reply many times its size. A later rejected item
 * is listed, without its error text, only when it carries a code its sender acts on (unknown_prefix: re-send it with
 * full lists); errors_truncated counts the rejected items left out.
 */
export function summarize(results: ItemResult[]): BatchReply {
  const reply: BatchReply = { accepted: 0, duplicate: 0, rejected: 0, items: results };
  for (const i of results) reply[i.status]++;
  if (reply.rejected <= MAX_ITEM_ERRORS) return reply;
  const items: ItemResult[] = [];
  let errors = 0;
  for (const i of results) {
    if (i.status !== "rejected" || ++errors <= MAX_ITEM_ERRORS) items.push(i);
    else if (i.code !== undefined) items.push(withoutError(i));
  }
  return { ...reply, items, errors_truncated: results.length - items.length };
}

function withoutError({ index, line, id, status, code }: ItemResult): ItemResult {
  return line === undefined ? { index, id, status, code } : { index, line, id, status, code };
}
