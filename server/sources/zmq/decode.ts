import { Decoder } from "@msgpack/msgpack";

// vLLM/SGLang KV events (docs/sources.md): multipart [topic, 8-byte big-endian sequence, msgpack batch].
// The batch is [ts, events, data_parallel_rank?] (msgspec array_like) or {ts, events, data_parallel_rank?}; each event
// is ["BlockStored", block_hashes, parent_block_hash, token_ids, block_size, lora_id, medium, ...] /
// ["BlockRemoved", block_hashes, medium] / ["AllBlocksCleared"], or the same fields in a map keyed by `type`.

/** Largest payload frame decoded; bigger ones are refused whole (a vLLM batch is a few KiB to a few MiB). */
export const MAX_PAYLOAD_BYTES = 16 * 1024 * 1024;
/** Largest msgpack array decoded (token_ids of one event can hold block_size × blocks entries). */
export const MAX_ARRAY = 1_048_576;
/** Most events taken from one batch; the rest are dropped and reported. */
export const MAX_BATCH_EVENTS = 65_536;

const U64 = (1n << 64n) - 1n;

const decoder = new Decoder({
  useBigInt64: true,
  maxStrLength: 1_048_576,
  maxBinLength: MAX_PAYLOAD_BYTES,
  maxArrayLength: MAX_ARRAY,
  maxMapLength: 4_096,
  maxExtLength: 4_096,
});

export type StoredEvent = {
  type: "stored";
  blockHashes: string[];
  parentHash: string | null;
  blockSize: number | null;
  tokenCount: number | null;
  medium: string | null;
};
export type RemovedEvent = { type: "removed"; blockHashes: string[]; medium: string | null };
export type ClearedEvent = { type: "cleared"; medium: string | null };
export type KvEvent = StoredEvent | RemovedEvent | ClearedEvent;

/** One decoded batch: ts in Unix ms (null when absent or unusable), the events it held, and what was wrong with it. */
export type KvBatch = {
  tsMs: number | null;
  dpRank: number | null;
  events: KvEvent[];
  /** Event types this decoder does not know (newer publishers), by name: skipped, not an error. */
  unknown: Record<string, number>;
  /** One line per malformed event (index and reason); the good events are kept. */
  problems: string[];
};

export type Frames = { topic: string; seq: bigint; payload: Uint8Array };

/** Split a ZMQ multipart message into topic, sequence and payload; a message of another shape is an error. */
export function splitFrames(
  frames: readonly Uint8Array[],
): { ok: true; frames: Frames } | { ok: false; error: string } {
  if (frames.length !== 3)
    return { ok: false, error: `expected 3 frames [topic, sequence, payload], got ${frames.length}` };
  const [topic, seq, payload] = frames as [Uint8Array, Uint8Array, Uint8Array];
  if (seq.length !== 8)
    return { ok: false, error: `sequence frame must be 8 bytes (big-endian uint64), got ${seq.length}` };
  if (topic.length > 1_024) return { ok: false, error: `topic frame too long (${topic.length} bytes)` };
  if (payload.length > MAX_PAYLOAD_BYTES)
    return { ok: false, error: `payload of ${payload.length} bytes exceeds ${MAX_PAYLOAD_BYTES}` };
  const view = new DataView(seq.buffer, seq.byteOffset, 8);
  return {
    ok: true,
    frames: { topic: Buffer.from(topic).toString("utf8"), seq: view.getBigUint64(0, false), payload },
  };
}

/**
 * A block hash as the decimal string of an unsigned 64-bit value. Integers: negative ones (Python's signed hash())
 * are taken as two's complement. Byte strings (vLLM's sha256 hashes): big-endian, low 64 bits, the same rule as
 * vLLM's VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES conversion, so a worker hashes alike in either mode. Text: decimal or
 * 0x-hex, by the same rules. Returns null for anything else.
 */
export function hashToDecimal(v: unknown): string | null {
  if (typeof v === "bigint") return BigInt.asUintN(64, v).toString();
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) return null;
    return v >= 0 ? String(v) : BigInt.asUintN(64, BigInt(v)).toString();
  }
  if (v instanceof Uint8Array) {
    if (v.length === 0 || v.length > 256) return null;
    let n = 0n;
    for (let i = Math.max(0, v.length - 8); i < v.length; i++) n = (n << 8n) | BigInt(v[i]!);
    return n.toString();
  }
  if (typeof v === "string") {
    if (/^-?[0-9]{1,20}$/.test(v)) {
      const n = BigInt(v);
      return n > U64 ? null : BigInt.asUintN(64, n).toString();
    }
    if (/^0x[0-9a-fA-F]{1,512}$/.test(v)) return BigInt.asUintN(64, BigInt(v)).toString();
  }
  return null;
}

/** Batch timestamp (float Unix seconds in vLLM; ms and ns accepted by magnitude) as Unix ms, or null. */
export function batchTsMs(v: unknown): number | null {
  const n = typeof v === "bigint" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) return null;
  const ms = n < 1e11 ? n * 1_000 : n < 1e14 ? n : n < 1e17 ? n / 1_000 : n / 1_000_000;
  return Math.round(ms);
}

/** Decode one msgpack payload into a batch; null with an error when the payload itself is unusable. */
export function decodeBatch(payload: Uint8Array): { ok: true; batch: KvBatch } | { ok: false; error: string } {
  let value: unknown;
  try {
    value = decoder.decode(payload);
  } catch (err) {
    return {
      ok: false,
      error: `payload is not valid msgpack: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300),
    };
  }
  let ts: unknown;
  let events: unknown;
  let rank: unknown;
  if (Array.isArray(value)) {
    [ts, events, rank] = value as unknown[];
  } else if (isMap(value)) {
    ({ ts, events } = value);
    rank = value.data_parallel_rank ?? value.attn_dp_rank; // SGLang names it attn_dp_rank
  } else {
    return {
      ok: false,
      error: `payload must be a batch [ts, events, data_parallel_rank] or a map, got ${describe(value)}`,
    };
  }
  if (!Array.isArray(events)) return { ok: false, error: `batch events must be an array, got ${describe(events)}` };

  const batch: KvBatch = { tsMs: batchTsMs(ts), dpRank: toInt(rank), events: [], unknown: {}, problems: [] };
  const n = Math.min(events.length, MAX_BATCH_EVENTS);
  if (events.length > n) batch.problems.push(`batch holds ${events.length} events; only the first ${n} were read`);
  for (let i = 0; i < n; i++) {
    const r = decodeEvent(events[i]);
    if ("event" in r) batch.events.push(r.event);
    else if ("unknown" in r) batch.unknown[r.unknown] = (batch.unknown[r.unknown] ?? 0) + 1;
    else if (batch.problems.length < 20) batch.problems.push(`event ${i}: ${r.error}`);
  }
  return { ok: true, batch };
}

type EventResult = { event: KvEvent } | { unknown: string } | { error: string };

/** One event, positional (tag first) or a map keyed by `type`. */
export function decodeEvent(v: unknown): EventResult {
  let tag: unknown;
  let f: Record<string, unknown>;
  if (Array.isArray(v)) {
    tag = v[0];
    if (tag === "BlockStored")
      f = { block_hashes: v[1], parent_block_hash: v[2], token_ids: v[3], block_size: v[4], medium: v[6] };
    else if (tag === "BlockRemoved") f = { block_hashes: v[1], medium: v[2] };
    else f = { medium: v[1] };
  } else if (isMap(v)) {
    tag = v.type ?? v.event_type;
    // Dynamo's router events name the tier storage_tier (device, host_pinned, disk, external); vLLM's say medium.
    f = v.medium === undefined && v.storage_tier !== undefined ? { ...v, medium: v.storage_tier } : v;
  } else return { error: `must be an array or a map, got ${describe(v)}` };
  if (typeof tag !== "string" || tag.length === 0) return { error: "has no event type" };

  switch (tag) {
    case "BlockStored": {
      const hashes = hashList(f.block_hashes);
      if ("error" in hashes) return hashes;
      const parent =
        f.parent_block_hash === undefined || f.parent_block_hash === null ? null : hashToDecimal(f.parent_block_hash);
      if (parent === null && f.parent_block_hash !== undefined && f.parent_block_hash !== null) {
        return { error: `parent_block_hash: not a 64-bit integer or byte string (${describe(f.parent_block_hash)})` };
      }
      const tokens = Array.isArray(f.token_ids) ? f.token_ids.length : null;
      return {
        event: {
          type: "stored",
          blockHashes: hashes.list,
          parentHash: parent,
          blockSize: toInt(f.block_size),
          tokenCount: tokens,
          medium: text(f.medium),
        },
      };
    }
    case "BlockRemoved": {
      const hashes = hashList(f.block_hashes);
      if ("error" in hashes) return hashes;
      return { event: { type: "removed", blockHashes: hashes.list, medium: text(f.medium) } };
    }
    case "AllBlocksCleared":
      return { event: { type: "cleared", medium: text(f.medium) } };
    default:
      return { unknown: tag.slice(0, 64) };
  }
}

function hashList(v: unknown): { list: string[] } | { error: string } {
  if (!Array.isArray(v)) return { error: `block_hashes must be an array, got ${describe(v)}` };
  if (v.length === 0) return { error: "block_hashes is empty" };
  const list: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const h = hashToDecimal(v[i]);
    if (h === null) return { error: `block_hashes.${i}: not a 64-bit integer or byte string (${describe(v[i])})` };
    list[i] = h;
  }
  return { list };
}

function isMap(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
}

function toInt(v: unknown): number | null {
  const n = typeof v === "bigint" ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) ? n : null;
}

function text(v: unknown): string | null {
  return typeof v === "string" ? v.slice(0, 64) : null;
}

function describe(v: unknown): string {
  if (v === null) return "nil";
  if (Array.isArray(v)) return `an array of ${v.length}`;
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (typeof v === "string") return `text ${JSON.stringify(v.slice(0, 24))}`;
  if (typeof v === "number" || typeof v === "bigint")
    return `${typeof v === "bigint" ? "integer" : "number"} ${String(v).slice(0, 24)}`;
  return typeof v === "object" ? "a map" : typeof v;
}
