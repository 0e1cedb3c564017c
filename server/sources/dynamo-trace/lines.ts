import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";

/** One line of a trace file (1-based number), or a line that was too long to keep. */
export type TraceLine = { line: number; text: string } | { line: number; tooLong: true };

/** Longest line kept, in characters (longer lines are counted as bad, not buffered). */
export const MAX_LINE_CHARS = 4 * 1024 * 1024;

/** True when the bytes start with the gzip magic number. */
export function isGzip(head: Uint8Array): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** A readable error for a broken compressed stream (records before the break are kept by the caller). */
export class TraceReadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TraceReadError";
  }
}

/**
 * The lines of a JSONL or gzip JSONL byte stream (gzip detected by magic bytes, concatenated members allowed), read
 * incrementally. Blank lines are skipped but counted. Throws TraceReadError when the gzip data is truncated or corrupt.
 */
export async function* traceLines(
  source: AsyncIterable<Uint8Array>,
  maxLineChars = MAX_LINE_CHARS,
): AsyncGenerator<TraceLine> {
  const decoder = new TextDecoder("utf-8");
  let pending = "";
  let skipping = false;
  let line = 0;
  for await (const chunk of decompressed(source)) {
    const text = decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const nl = text.indexOf("\n", start);
      if (nl < 0) break;
      line++;
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (skipping) {
        skipping = false;
        pending = "";
        yield { line, tooLong: true };
        continue;
      }
      const full = pending + piece;
      pending = "";
      if (full.length > maxLineChars) yield { line, tooLong: true };
      else if (full.trim() !== "") yield { line, text: full };
    }
    if (!skipping) {
      pending += text.slice(start);
      if (pending.length > maxLineChars) {
        skipping = true;
        pending = "";
      }
    }
  }
  const rest = pending + decoder.decode();
  line++;
  if (skipping || rest.length > maxLineChars) yield { line, tooLong: true };
  else if (rest.trim() !== "") yield { line, text: rest };
}

/** The stream's bytes, gunzipped when it starts with the gzip magic number. */
async function* decompressed(source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const it = source[Symbol.asyncIterator]();
  let first = await it.next();
  while (!first.done && first.value.byteLength < 2) {
    const next = await it.next();
    if (next.done) break;
    first = { done: false, value: concat(first.value, next.value) };
  }
  if (first.done) return;
  const rest: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => it.next(),
      return: async () => (await it.return?.(), { done: true, value: undefined }),
    }),
  };
  async function* all() {
    yield first.value as Uint8Array;
    yield* rest;
  }
  if (!isGzip(first.value)) {
    yield* all();
    return;
  }
  const gunzip = Readable.from(all(), { objectMode: false }).pipe(createGunzip());
  try {
    for await (const out of gunzip) yield out as Uint8Array;
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new TraceReadError(
      code === "Z_BUF_ERROR" || /unexpected end/i.test(String((err as Error).message))
        ? "gzip data ends early (truncated file): records before the break were kept"
        : `gzip data is corrupt (${(err as Error).message}): records before the break were kept`,
    );
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}
