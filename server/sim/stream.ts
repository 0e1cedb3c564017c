import { chainHash, combineContent, localHash, toDecimal, writeDecimal, type Hash64 } from "./hashing";
import type { LineOut } from "./json-lines";

// A trajectory's prompt as abstract content: parts (content id + token count) packed into blocks of
// blockSize tokens. Only full blocks are hashed, as in vLLM/Dynamo.

export const SEGMENT_NAMES = ["system_prompt", "tool_definitions", "conversation", "subagent_state"] as const;
export type Segment = (typeof SEGMENT_NAMES)[number];
export const SEG_SYSTEM = 0;
export const SEG_TOOLS = 1;
export const SEG_CONVERSATION = 2;
export const SEG_SUBAGENT = 3;

export class TokenStream {
  readonly contents: number[] = [];
  /** Segment code of each full block (the segment of its first token). */
  readonly segments: number[] = [];
  tokens = 0;
  private tailContent = 0;
  private tailLen = 0;
  private tailSegment = 0;

  constructor(readonly blockSize: number) {}

  /** Append a part of `count` tokens whose content is identified by `part`. */
  append(part: number, count: number, segment: number): void {
    const bs = this.blockSize;
    let offset = 0;
    let left = count;
    while (left > 0) {
      if (this.tailLen === 0) {
        this.tailContent = 0;
        this.tailSegment = segment;
      }
      const take = Math.min(bs - this.tailLen, left);
      this.tailContent = combineContent(this.tailContent, part, offset);
      offset += take;
      left -= take;
      this.tailLen += take;
      if (this.tailLen === bs) {
        this.contents.push(this.tailContent);
        this.segments.push(this.tailSegment);
        this.tailLen = 0;
      }
    }
    this.tokens += count;
  }

  clone(): TokenStream {
    const copy = new TokenStream(this.blockSize);
    copy.contents.push(...this.contents);
    copy.segments.push(...this.segments);
    copy.tokens = this.tokens;
    copy.tailContent = this.tailContent;
    copy.tailLen = this.tailLen;
    copy.tailSegment = this.tailSegment;
    return copy;
  }
}

const scratch: Hash64 = { hi: 0, lo: 0 };
const NO_WORDS = new Uint32Array(0);
const NO_IDS = new Int32Array(0);
const NO_CONTENTS = new Float64Array(0);
/** Blocks a view has room for at first (a shared prefix is about this long). */
const MIN_BLOCKS = 64;
let chunkBuf = Buffer.allocUnsafe(1 << 16);

/** A scratch buffer of at least `n` bytes for one chunk's text. */
function chunkBytes(n: number): Buffer {
  if (chunkBuf.length < n) chunkBuf = Buffer.allocUnsafe(Math.max(n, 2 * chunkBuf.length));
  return chunkBuf;
}

/**
 * Sequence and local hashes of a stream's full blocks, computed incrementally. `firstBlock`, when
 * set, replaces block 0's content (a per-session billing header the frontend did not strip).
 */
export class HashView {
  /**
   * The sequence hashes' u64 halves, hi and lo of block i at 2 i and 2 i + 1 (u32), in typed arrays grown by doubling
   * with `ids` and `contentOf`: a JS array of each was most of what the simulation's young collections copied (a
   * trajectory's arrays live as long as it does), where a typed array's storage is outside the heap they copy. These
   * are also the words a line sink that takes hash lists as halves reads (LineOut.u64s).
   */
  words: Uint32Array = NO_WORDS;
  /** Every seq item is toDecimal(hi, lo) (the prefix index keeps no string for such a list's entries). */
  readonly decimal = true;
  /** Decimal strings of the sequence hashes of blocks [0, seqStr.length), written when first read. */
  private readonly seqStr: string[] = [];
  /** Content id each block's local hash is taken from; the local hashes' decimal strings are written when first read. */
  private contentOf: Float64Array = NO_CONTENTS;
  private readonly localStr: string[] = [];
  /** The shared prefix's view whose local strings blocks below its length reuse (same content, same string). */
  private shared: HashView | null = null;
  /** Prefix-index entry ids cached per block (-1: not looked up or absent). */
  ids: Int32Array = NO_IDS;
  /** Hashed blocks: [0, n) of words, ids and contentOf. */
  private n = 0;
  /** Blocks from this one on hold hashes no other view holds (HashList.uniqueFrom; a clone does not inherit it). */
  uniqueFrom = Infinity;
  /**
   * The hashes of blocks [0, jsonBlocks) as JSON array items ("h0","h1",…,), in one flat chunk per build (a build
   * covers the blocks hashed since the previous one), and the end offset of each item's comma + 1 within its chunk;
   * written when first asked for (runs without output never build them). Chunks instead of one growing string:
   * slicing a string that was appended to copies all of it, which made every turn's serialisation cost its context.
   */
  private readonly seqChunks: string[] = [];
  private readonly localChunks: string[] = [];
  /** First block of each chunk. */
  private readonly chunkFirst: number[] = [];
  private readonly seqEnds: number[] = [];
  private readonly localEnds: number[] = [];
  private jsonBlocks = 0;
  /**
   * The local hashes of blocks [0, wordBlocks) as u64 halves (hi, lo at 2 i, 2 i + 1), for a line sink that takes hash
   * lists as halves (LineOut.u64s); built when first asked for, as the JSON chunks are.
   */
  private localWords = NO_WORDS;
  private wordBlocks = 0;

  constructor(readonly firstBlock: number | null) {}

  /**
   * Sequence hashes of every hashed block as decimal strings (not to be modified), made when first read: runs that
   * only write them out (writeItems) or discard them never make a string per block, which the garbage collector would
   * otherwise keep walking for as long as the trajectory lives.
   */
  get seq(): string[] {
    const out = this.seqStr;
    const n = this.n;
    if (out.length === n) return out;
    const dec = toDecimal;
    const w = this.words;
    for (let i = out.length; i < n; i++) out.push(dec(w[2 * i]!, w[2 * i + 1]!));
    return out;
  }

  /** The sequence hash of block i as a decimal string (without making the others'). */
  seqAt(i: number): string {
    return i < this.seqStr.length ? this.seqStr[i]! : toDecimal(this.words[2 * i]!, this.words[2 * i + 1]!);
  }

  /** Number of hashed blocks. */
  get length(): number {
    return this.n;
  }

  /** Local (content-only) hashes of every hashed block (not to be modified): runs that never serialise them never write their text. */
  get local(): string[] {
    const out = this.localStr;
    const n = this.n;
    if (out.length === n) return out;
    const shared = this.shared;
    const sharedLocal = shared ? shared.local : null;
    for (let i = out.length; i < n; i++) {
      if (sharedLocal && i < sharedLocal.length && (i > 0 || this.firstBlock === null)) out.push(sharedLocal[i]!);
      else {
        localHash(this.contentOf[i]!, scratch);
        out.push(toDecimal(scratch.hi, scratch.lo));
      }
    }
    return out;
  }

  /** Write the JSON array items (without brackets) of the sequence or local hashes of blocks [from, to) to `out`, chunk by chunk (no joined copy). */
  writeItems(out: LineOut, which: "seq" | "local", from: number, to: number): void {
    if (to <= from) return;
    if (out.u64s !== undefined) {
      if (to > this.wordBlocks) this.buildWords();
      out.u64s(which === "seq" ? this.words : this.localWords, from, to);
      return;
    }
    if (to > this.jsonBlocks) this.buildJson();
    const chunks = which === "seq" ? this.seqChunks : this.localChunks;
    const ends = which === "seq" ? this.seqEnds : this.localEnds;
    const first = this.chunkFirst;
    const k1 = this.chunkOf(from);
    const k2 = this.chunkOf(to - 1);
    const start = from === first[k1] ? 0 : ends[from - 1]!;
    if (k1 === k2) {
      out.ascii(chunks[k1]!.slice(start, ends[to - 1]! - 1));
      return;
    }
    out.ascii(start === 0 ? chunks[k1]! : chunks[k1]!.slice(start));
    for (let k = k1 + 1; k < k2; k++) out.ascii(chunks[k]!);
    out.ascii(chunks[k2]!.slice(0, ends[to - 1]! - 1));
  }

  /** The chunk holding block i (i < jsonBlocks). */
  private chunkOf(i: number): number {
    const first = this.chunkFirst;
    let lo = 0;
    let hi = first.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (first[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /**
   * Add one chunk of JSON items for every block hashed since the last call. The local hashes' digits are written
   * straight into bytes (no string per block: a run that only serialises them never keeps their strings).
   */
  private buildJson(): void {
    const from = this.jsonBlocks;
    const to = this.n;
    if (to <= from) return;
    const bytes = chunkBytes((to - from) * 23);
    const w = this.words;
    let at = 0;
    for (let i = from; i < to; i++) {
      bytes[at++] = 34;
      at = writeDecimal(bytes, at, w[2 * i]!, w[2 * i + 1]!);
      bytes[at++] = 34;
      bytes[at++] = 44;
      this.seqEnds.push(at);
    }
    this.seqChunks.push(bytes.toString("latin1", 0, at));
    at = 0;
    for (let i = from; i < to; i++) {
      localHash(this.contentOf[i]!, scratch);
      bytes[at++] = 34;
      at = writeDecimal(bytes, at, scratch.hi, scratch.lo);
      bytes[at++] = 34;
      bytes[at++] = 44;
      this.localEnds.push(at);
    }
    this.localChunks.push(bytes.toString("latin1", 0, at));
    this.chunkFirst.push(from);
    this.jsonBlocks = to;
  }

  /** Local hashes' halves of every block hashed since the last call (grown by doubling). */
  private buildWords(): void {
    const from = this.wordBlocks;
    const to = this.n;
    if (2 * to > this.localWords.length) {
      const local = new Uint32Array(Math.max(64, 4 * to));
      local.set(this.localWords.subarray(0, 2 * from));
      this.localWords = local;
    }
    const { contentOf, localWords } = this;
    for (let i = from; i < to; i++) {
      localHash(contentOf[i]!, scratch);
      localWords[2 * i] = scratch.hi;
      localWords[2 * i + 1] = scratch.lo;
    }
    this.wordBlocks = to;
  }

  /** Hash blocks up to the stream's current length. */
  extend(stream: TokenStream, shared?: HashView): void {
    const contents = stream.contents;
    if (shared && !this.shared) this.shared = shared;
    const to = contents.length;
    let i = this.n;
    if (to <= i) return;
    if (to > this.ids.length) this.reserve(Math.max(to, 2 * this.ids.length));
    const { words, ids, contentOf } = this;
    let pHi = i === 0 ? 0 : words[2 * i - 2]!;
    let pLo = i === 0 ? 0 : words[2 * i - 1]!;
    for (; i < to; i++) {
      const content = i === 0 && this.firstBlock !== null ? this.firstBlock : contents[i]!;
      chainHash(pHi, pLo, content, scratch);
      pHi = words[2 * i] = scratch.hi;
      pLo = words[2 * i + 1] = scratch.lo;
      ids[i] = -1;
      contentOf[i] = content;
    }
    this.n = to;
  }

  /** Room for `blocks` blocks in words, ids and contentOf (their first n kept). */
  private reserve(blocks: number): void {
    const size = Math.max(MIN_BLOCKS, blocks);
    const words = new Uint32Array(2 * size);
    words.set(this.words.subarray(0, 2 * this.n));
    const ids = new Int32Array(size);
    ids.set(this.ids.subarray(0, this.n));
    const contentOf = new Float64Array(size);
    contentOf.set(this.contentOf.subarray(0, this.n));
    this.words = words;
    this.ids = ids;
    this.contentOf = contentOf;
  }

  /** A copy sharing the hash strings (strings are immutable; arrays are not shared). */
  clone(): HashView {
    const copy = new HashView(this.firstBlock);
    // With room to grow: a clone is a trajectory's own view of a shared prefix, extended by its conversation next.
    copy.reserve(2 * this.n);
    copy.n = this.n;
    copy.words.set(this.words.subarray(0, 2 * this.n));
    copy.ids.set(this.ids.subarray(0, this.n));
    copy.contentOf.set(this.contentOf.subarray(0, this.n));
    copy.seqStr.push(...this.seqStr);
    copy.localStr.push(...this.localStr);
    copy.shared = this.shared;
    copy.seqChunks.push(...this.seqChunks);
    copy.localChunks.push(...this.localChunks);
    copy.chunkFirst.push(...this.chunkFirst);
    copy.seqEnds.push(...this.seqEnds);
    copy.localEnds.push(...this.localEnds);
    copy.jsonBlocks = this.jsonBlocks;
    if (this.wordBlocks > 0) {
      copy.localWords = this.localWords.slice();
      copy.wordBlocks = this.wordBlocks;
    }
    return copy;
  }
}

/** A shared prompt prefix (system prompt + tool definitions) hashed once and copied per trajectory. */
export type SharedPrefix = { stream: TokenStream; view: HashView };

/** Build a shared prefix from its parts. */
export function buildPrefix(
  blockSize: number,
  parts: readonly (readonly [part: number, tokens: number, segment: number])[],
): SharedPrefix {
  const stream = new TokenStream(blockSize);
  for (const [part, tokens, segment] of parts) stream.append(part, tokens, segment);
  const view = new HashView(null);
  view.extend(stream);
  return { stream, view };
}
