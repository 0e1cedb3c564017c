import { LiftedHashes } from "../../db/codecs/chains";
import { LIFT_BUFFER_BYTES } from "../../lib/memory-bounds";
import type { Decoded } from "./batch";
import { fastParse } from "./event-fast-path";
import { keyWorkers, parseEvent } from "./events";
import type { EventKind, ParseResult } from "./events";

// KV events are mostly their hash lists (the simulator's KV lines, ~80% of its stream's bytes, are ~90% hash lists).
// JSON.parse would build a string per hash, the fast path would check each and the store encode each again, and the
// young generation would hold them all until the batch is stored. Here such a line's lists are read from
// its text straight into their binary form (codecs/chains.ts's encodeHashes), checked as badHashIndex checks, and the line
// is parsed with a marker in their place. Anything not plainly a compact list of decimal strings is left to JSON.parse
// (the caller then parses the line as it is), so what is accepted or refused, and every error, stays the same.

/** What a lifted list's place holds in the text given to JSON.parse (a line holding it anywhere is not lifted). */
const MARK_TEXT = '"\\u0000"';
const MARK = "\u0000";
const TWO_32 = 4_294_967_296;
/** 2^64 - 1 as digits: a 20-digit hash is compared with it digit by digit. */
const U64_MAX = "18446744073709551615";

/**
 * The list being read, as encodeHashes' bytes, grown as needed (see LIFT_BUFFER_BYTES); copied out into the list's own
 * buffer.
 */
const FIRST_LIST_BYTES = 8 * 1024;
let scratch: Buffer = Buffer.allocUnsafe(FIRST_LIST_BYTES);
let view = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);

/**
 * The line's text as bytes (its characters, when every one is ASCII; see asciiBytes), read by readList: a byte of a
 * typed array costs a fraction of a character of the sliced string a body's line is. Kept between lines up to
 * LIFT_BUFFER_BYTES; a longer line gets a buffer of its own, dropped after it. The list buffer (`scratch`) is bounded
 * the same way: grown for a longer list, then dropped.
 */
let bytes = Buffer.allocUnsafe(16 * 1024);
let kept = bytes;

/** The line in `bytes`, or false when it holds a character that is not ASCII (its list is then parsed as JSON). */
function asciiBytes(line: string): boolean {
  // Three bytes a character (UTF-8's most for one UTF-16 unit) and one for the end: all of the line is written.
  const room = 3 * line.length + 1;
  if (kept.length < room && room <= LIFT_BUFFER_BYTES)
    kept = Buffer.allocUnsafe(Math.min(LIFT_BUFFER_BYTES, Math.max(room, 2 * kept.length)));
  bytes = kept.length >= room ? kept : Buffer.allocUnsafe(room);
  // UTF-8 gives a byte per character exactly when every character is ASCII: then byte i is character i.
  if (bytes.write(line, 0, "utf8") !== line.length) return false;
  // Past the line, a byte no list holds (not what an earlier, longer line left there).
  bytes[line.length] = 0;
  return true;
}

/**
 * A list's hashes read from `bytes` (the line, see asciiBytes) at `at` (just past its `[`): the index after its `]`
 * and its count, with the hashes in `scratch` when `keep`; null when it is not a compact list of decimal u64 strings
 * ("1","2", no spaces or escapes). A hash's first 15 digits (below 2^53) and the rest (at most 5) are taken apart, so
 * its two 32-bit halves come from two divisions, in the pass that checks its digits.
 */
function readList(at: number, keep: boolean): { end: number; count: number } | null {
  const b = bytes;
  let i = at;
  let count = 0;
  if (b[i] === 93) return { end: i + 1, count: 0 };
  for (;;) {
    if (b[i] !== 34) return null;
    const start = ++i;
    let head = 0;
    let c = b[i]!;
    // The first 15 digits (below 2^53), then the rest (a u64 has at most 20).
    while (c >= 48 && c <= 57 && i - start < 15) {
      head = head * 10 + (c - 48);
      c = b[++i]!;
    }
    let rest = 0;
    let scale = 1;
    while (c >= 48 && c <= 57) {
      rest = rest * 10 + (c - 48);
      scale *= 10;
      c = b[++i]!;
    }
    const n = i - start;
    if (c !== 34 || n === 0 || n > 20 || (n > 1 && b[start] === 48)) return null;
    if (n === 20 && !atMostU64Max(start)) return null;
    if (keep) {
      if (scratch.byteLength < 8 * (count + 1)) grow();
      const headHi = Math.floor(head / TWO_32);
      const low = (head - headHi * TWO_32) * scale + rest;
      const carry = Math.floor(low / TWO_32);
      view.setUint32(8 * count, headHi * scale + carry);
      view.setUint32(8 * count + 4, low - carry * TWO_32);
    }
    count++;
    c = b[++i]!;
    if (c === 93) return { end: i + 1, count };
    if (c !== 44) return null;
    i++;
  }
}

function grow(): void {
  const bigger = Buffer.allocUnsafe(scratch.byteLength * 2);
  scratch.copy(bigger);
  setScratch(bigger);
}

function setScratch(buffer: Buffer): void {
  scratch = buffer;
  view = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);
}

function atMostU64Max(start: number): boolean {
  for (let k = 0; k < 20; k++) {
    const d = bytes[start + k]! - U64_MAX.charCodeAt(k);
    if (d !== 0) return d < 0;
  }
  return true;
}

/** The list read into scratch, in a buffer of its own. */
function bytesOf(count: number): Buffer {
  const out = Buffer.allocUnsafe(count * 8);
  scratch.copy(out, 0, 0, count * 8);
  return out;
}

type Lift = { at: number; end: number; list: LiftedHashes };

/** The first `key` list of `line` lifted (bytes kept when `keep`), or null. */
function liftKey(line: string, key: string, keep: boolean): Lift | null {
  const at = line.indexOf(key);
  if (at < 0) return null;
  const r = readList(at + key.length, keep);
  if (!r) return null;
  return { at: at + key.length - 1, end: r.end, list: new LiftedHashes(r.count, keep ? bytesOf(r.count) : null) };
}

/** Per kind lifted (`quoted`: its name as JSON text), its lists: field, and whether its bytes are kept (stored). */
const KINDS: { kind: string; quoted: string; lists: { field: string; key: string; keep: boolean }[] }[] = [
  {
    kind: "kv.stored",
    quoted: '"kv.stored"',
    lists: [
      { field: "block_hashes", key: '"block_hashes":[', keep: true },
      // Checked but not stored (db/ingest/kv-rows.ts): only its length is kept.
      { field: "local_hashes", key: '"local_hashes":[', keep: false },
    ],
  },
  {
    kind: "kv.removed",
    quoted: '"kv.removed"',
    lists: [{ field: "block_hashes", key: '"block_hashes":[', keep: true }],
  },
];

const KIND_KEY = '"kind":"';
/**
 * Shorter lines are parsed as they are: their few hashes cost JSON.parse less than finding and cutting them out
 * (the simulator's KV lines are 4-7 kB; bench:ingest's mix has 16 hashes in a ~600-byte KV line).
 */
const MIN_LINE = 1024;

/** The lifted kind the line's first "kind" names (the parse then checks it is the event's own), or undefined. */
function kindOf(line: string): (typeof KINDS)[number] | undefined {
  const at = line.indexOf(KIND_KEY);
  if (at < 0) return undefined;
  const from = at + KIND_KEY.length - 1;
  for (const k of KINDS) if (line.startsWith(k.quoted, from)) return k;
  return undefined;
}

/** The line's lists of kind `k` read (none when a character is not ASCII); the buffers they were read with released. */
function liftLists(line: string, k: (typeof KINDS)[number]): (Lift & { field: string })[] {
  const lifts: (Lift & { field: string })[] = [];
  try {
    if (!asciiBytes(line)) return lifts;
    for (const l of k.lists) {
      const lift = liftKey(line, l.key, l.keep);
      if (lift) lifts.push({ ...lift, field: l.field });
    }
    return lifts;
  } finally {
    // A long line's own buffer, and a list buffer grown past the bound, are not kept for the next line.
    bytes = kept;
    if (scratch.byteLength > LIFT_BUFFER_BYTES) setScratch(Buffer.allocUnsafe(FIRST_LIST_BYTES));
  }
}

/** The bytes the reader keeps between lines: the line's buffer and the list's (tests check the bound). */
export function liftBuffersBytes(): number {
  return bytes.byteLength + scratch.byteLength;
}

/**
 * One NDJSON line parsed as JSON.parse would, except that a kv.stored / kv.removed event's block_hashes (and a
 * kv.stored's local_hashes, which are checked but not stored) are LiftedHashes (a request's lists are not lifted:
 * bench:ingest's mix, 2.6 kB request lines, spent more dashboard CPU per event with them lifted). Returns null when nothing was lifted (parse the line itself: also when it is not valid JSON, so its
 * error is JSON.parse's on the line as sent).
 */
export function parseLifted(line: string): Record<string, unknown> | null {
  if (line.length < MIN_LINE) return null;
  const k = kindOf(line);
  if (!k || line.includes("\\u0000")) return null;
  const lifts = liftLists(line, k);
  if (lifts.length === 0) return null;
  // In text order (at most two lists: an insertion sort; Array#sort with a comparator allocated a work array per line).
  for (let i = 1; i < lifts.length; i++)
    for (let j = i; j > 0 && lifts[j - 1]!.at > lifts[j]!.at; j--)
      [lifts[j - 1], lifts[j]] = [lifts[j]!, lifts[j - 1]!];
  for (let i = 1; i < lifts.length; i++) if (lifts[i - 1]!.end > lifts[i]!.at) return null;
  let text = "";
  let from = 0;
  for (const l of lifts) {
    text += line.slice(from, l.at) + MARK_TEXT;
    from = l.end;
  }
  text += line.slice(from);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  // The markers must be the event's own fields (not a nested object's, not overridden by a repeated key).
  if (o.kind !== k.kind) return null;
  for (const l of lifts) if (o[l.field] !== MARK) return null;
  for (const l of lifts) o[l.field] = l.list;
  return o;
}

/**
 * parseEvent for an item decodeBody gave with parseLifted: a lifted item through the fast path, and when that gives up,
 * its line parsed as sent through parseEvent (the schema never sees a lifted list: its errors are the line's own).
 */
export function parseLiftedItem(item: Decoded): ParseResult {
  if (item.raw === undefined) return parseEvent(item.value);
  const v = item.value as Record<string, unknown>;
  const fast = fastParse(v.kind as EventKind, v);
  return fast ? { ok: true, event: keyWorkers(fast) } : parseEvent(JSON.parse(item.raw));
}
