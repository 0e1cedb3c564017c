import { contentId } from "../sim/hashing";
import { hashString } from "../sim/prng";
import { HashView, SEG_CONVERSATION, SEG_SUBAGENT, SEG_TOOLS, TokenStream } from "../sim/stream";
import { loneKeys } from "./lone-keys";
import type { PrefixShape } from "./prefix-shape";
import { MIN_SHARED_BLOCKS, SharedPrefixes } from "./shared-prefixes";
import type { RecordedTurn } from "./types";

// The prompts a replay sends, made from the recorded turns: one part per recorded block, hashed into the views the
// simulated cluster caches. They depend only on the turns, the prompt shapes, the block size and what the frontend
// does to block 0, not on the run's policies or timing (each trajectory's turns are sent in order), so the runs of one
// read window share them: every turn's prompt is made before the first run, and each run takes them as made (the
// preview's baseline and candidate when they run on one thread, the capacity planner's runs at each KV size). Only
// prompts whose view is their trajectory's are kept, which the runs hold anyway; a turn whose blocks do not fit the
// replay's block size gets a prompt of its own, made again in each run and dropped once the turn is done. With all of
// them made, every block is marked by whether its hash and its content occur elsewhere among them (markLone).

/** What the frontend does to block 0 of a Claude-Code-like prompt compared with the recording. */
export type HeaderMode = "as_recorded" | "strip" | "add";

/**
 * One turn's prompt. `opened`: the blocks of a shared opening it starts a new view with (0: none, or it grew a view).
 * `lone`: per block of the view, 1 when its content is at no other block of the window's prompts (null: not known).
 */
export type Prompt = {
  view: HashView;
  segments: readonly number[];
  nBlocks: number;
  contents: readonly number[];
  opened: number;
  lone: Uint8Array | null;
};

const TWO32 = 4294967296;

/**
 * The first n (hi, lo) pairs of a and b are equal: at once when they are views of the same bytes (a turn's chain read
 * as its previous turn's and more, see sharedPairs), else one native compare of their bytes.
 */
function samePairs(a: Uint32Array, b: Uint32Array, n: number): boolean {
  if (n === 0 || (a.buffer === b.buffer && a.byteOffset === b.byteOffset)) return true;
  const bytes = n * 8;
  return Buffer.from(a.buffer, a.byteOffset, bytes).equals(Buffer.from(b.buffer, b.byteOffset, bytes));
}

const NS_RECORDED = 0x5ec0;
const NS_STRIPPED = 0x5ec1;
const NS_HEADER = 0x5ec2;
const NS_TAIL = 0x5ec3;
const NO_SHAPE: PrefixShape = { sharedBlocks: 0, headed: false, firstBlocks: 0, firstSegment: 0 };

export class RecordedPrompts {
  /** Per turn: its prompt once made. */
  private made: (Prompt | undefined)[];
  /** Every view handed out, to clear their cached index entry ids when another run starts. */
  private views = new Set<HashView>();
  /** Per trajectory: the prompt its turns have grown so far, and the recorded blocks it was grown from. */
  private grown = new Map<string, { stream: TokenStream; view: HashView; pairs: Uint32Array }>();
  private prefixes = new SharedPrefixes();
  private runs = 0;
  private prepared = false;
  /** Blocks a run's collector may look up in its seen-sets: all but the kept views' own blocks (see prepare). */
  private lookups = 0;

  constructor(
    readonly turns: readonly RecordedTurn[],
    private shapes: ReadonlyMap<string, PrefixShape>,
    private blockSize: number,
    private header: HeaderMode,
  ) {
    this.made = new Array<Prompt | undefined>(turns.length);
  }

  /**
   * A run starts. Before the first, every turn's prompt is made and its blocks marked (prepare). Before the others,
   * views made for an earlier run forget the index entry ids they cached (another run's index; a cached id is checked
   * before use, so this only spares the run a wasted read per block).
   */
  beginRun(): void {
    this.prepare();
    if (this.runs++ > 0) for (const v of this.views) v.ids.fill(-1);
  }

  /** Make every turn's prompt and mark their blocks (markLone), once. */
  prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    this.markLone();
  }

  /**
   * At most how many distinct sequence hashes a run's collector adds to its seen-set (the blocks below each kept view's
   * uniqueFrom, and every block of a prompt of its own), to size it: with marks, a small fraction of the window's.
   */
  get lookupBound(): number {
    this.prepare();
    return this.lookups;
  }

  /**
   * Make every turn's prompt (in turn order, as the runs ask) and mark, over all their blocks, which hashes and
   * contents occur once. A kept view's blocks from its last shared hash on are its own (HashView.uniqueFrom: the
   * prefix index keeps them out of its table, the collector knows them unseen without a lookup), and each block whose
   * content is nowhere else is marked lone (the collector knows it never seen under another prefix either). A prompt
   * of its own counts too, as each run makes it again with the same hashes, but is not kept.
   */
  private markLone(): void {
    const own: Prompt[] = [];
    for (let i = 0; i < this.turns.length; i++) {
      const p = this.of(i);
      if (this.made[i] !== p) own.push(p);
    }
    for (const p of own) this.lookups += p.view.length;
    // Nothing is kept (no turn fits the replay's block size): no block can be marked.
    if (this.views.size === 0) return;
    const contentsOf = new Map<HashView, readonly number[]>();
    for (const p of this.made) if (p) contentsOf.set(p.view, p.contents);
    for (const p of own) contentsOf.set(p.view, p.contents);
    let n = 0;
    for (const v of contentsOf.keys()) n += v.length;
    // Hashes, then contents: one pass's arrays are garbage before the next pass makes its own.
    const seqLone = lonePass(contentsOf, n, (v, _, k, hi, lo, at) => {
      hi[at] = v.words[2 * k]!;
      lo[at] = v.words[2 * k + 1]!;
    });
    const conLone = lonePass(contentsOf, n, (_, contents, k, hi, lo, at) => {
      const c = contents[k]!;
      hi[at] = Math.floor(c / TWO32);
      lo[at] = c % TWO32;
    });
    const loneOf = new Map<HashView, Uint8Array>();
    let at = 0;
    for (const v of contentsOf.keys()) {
      if (this.views.has(v)) {
        let from = v.length;
        while (from > 0 && seqLone[at + from - 1] === 1) from--;
        v.uniqueFrom = from;
        this.lookups += from;
        loneOf.set(v, conLone.slice(at, at + v.length));
      }
      at += v.length;
    }
    for (const p of this.made) if (p) p.lone = loneOf.get(p.view)!;
  }

  /**
   * Turn i's prompt as abstract content (one part per recorded block, the rest of the prompt unique to the turn) and
   * the hash view it is a prefix of. A turn whose blocks extend its trajectory's previous turn grows that turn's view,
   * as the simulator's trajectories do; anything else starts a new one. Asked for in each trajectory's turn order.
   */
  of(i: number): Prompt {
    const kept = this.made[i];
    if (kept) return kept;
    const p = this.make(i);
    // Kept for the next run when its view is its trajectory's (which the runs keep anyway); a prompt of its own (a
    // turn whose blocks do not fit the replay's block size) is made again, as it is dropped once its turn is done.
    if (this.grown.get(this.turns[i]!.trajectoryId)?.view === p.view) {
      this.made[i] = p;
      this.views.add(p.view);
    }
    return p;
  }

  private make(i: number): Prompt {
    const t = this.turns[i]!;
    const per = t.blockSize ?? this.blockSize;
    const b = t.blocks;
    const n = b ? b.length / 2 : 0;
    const full = Math.min(n, Math.floor(t.inputTokens / per));
    if (per === this.blockSize && t.inputTokens - full * per < per) {
      let g = this.grown.get(t.trajectoryId);
      const m = g ? g.stream.contents.length : 0;
      const same = g !== undefined && samePairs(g.pairs, b!, Math.min(m, full));
      let opened = 0;
      if (!g || !same) {
        const o = this.opening(t, full);
        opened = o.opened;
        g = { stream: o.stream, view: o.view, pairs: b ?? new Uint32Array(0) };
        this.grown.set(t.trajectoryId, g);
      }
      if (full > g.stream.contents.length) {
        this.appendBlocks(g.stream, t, g.stream.contents.length, full);
        g.view.extend(g.stream);
        g.pairs = b!;
      }
      return {
        view: g.view,
        segments: g.stream.segments,
        nBlocks: full,
        contents: g.stream.contents,
        opened,
        lone: null,
      };
    }
    const stream = new TokenStream(this.blockSize);
    const used = this.appendBlocks(stream, t, 0, n);
    const own = t.parentTrajectoryId ? SEG_SUBAGENT : SEG_CONVERSATION;
    if (t.inputTokens - used > 0) stream.append(contentId(NS_TAIL, i), t.inputTokens - used, own);
    const view = new HashView(null);
    view.extend(stream);
    return {
      view,
      segments: stream.segments,
      nBlocks: stream.contents.length,
      contents: stream.contents,
      opened: 0,
      lone: null,
    };
  }

  /**
   * A new stream and view for a trajectory: its shared opening (the shape's shared blocks, when the turn holds them)
   * copied from the first trajectory that sent the same blocks, else hashed here and kept for the next.
   */
  private opening(t: RecordedTurn, full: number): { stream: TokenStream; view: HashView; opened: number } {
    const stream = new TokenStream(this.blockSize);
    const view = new HashView(null);
    const k = (this.shapes.get(t.trajectoryId) ?? NO_SHAPE).sharedBlocks;
    if (k < MIN_SHARED_BLOCKS || k > full || t.inputTokens < k * this.blockSize) return { stream, view, opened: 0 };
    const parts: number[] = [];
    const segments: number[] = [];
    for (let j = 0; j < k; j++) {
      const [part, seg] = this.blockOf(t, j);
      parts.push(part);
      segments.push(seg);
    }
    const kept = this.prefixes.take(parts, segments);
    if (kept) return { ...kept, opened: k };
    for (let j = 0; j < k; j++) stream.append(parts[j]!, this.blockSize, segments[j]!);
    view.extend(stream);
    this.prefixes.keep(parts, segments, stream, view);
    return { stream, view, opened: k };
  }

  /** Content id and segment of recorded block k of a turn (block 0 as the frontend mode makes it). */
  private blockOf(t: RecordedTurn, k: number): [number, number] {
    const shape = this.shapes.get(t.trajectoryId) ?? NO_SHAPE;
    const b = t.blocks!;
    const n = b.length / 2;
    let part = contentId(NS_RECORDED, b[2 * k]!, b[2 * k + 1]!);
    if (k === 0 && this.header === "strip" && shape.headed && n > 1) part = contentId(NS_STRIPPED, b[2]!, b[3]!);
    else if (k === 0 && this.header === "add" && !shape.headed && t.harness === "claude_code")
      part = contentId(NS_HEADER, hashString(t.trajectoryId));
    const own = t.parentTrajectoryId ? SEG_SUBAGENT : SEG_CONVERSATION;
    const seg = k < shape.firstBlocks ? shape.firstSegment : k < shape.sharedBlocks ? SEG_TOOLS : own;
    return [part, seg];
  }

  /** Append recorded blocks [from, to) of a turn; returns the tokens they cover. */
  private appendBlocks(stream: TokenStream, t: RecordedTurn, from: number, to: number): number {
    const per = t.blockSize ?? this.blockSize;
    let used = from * per;
    for (let k = from; k < to && used < t.inputTokens; k++) {
      const [part, seg] = this.blockOf(t, k);
      const take = Math.min(per, t.inputTokens - used);
      stream.append(part, take, seg);
      used += take;
    }
    return used;
  }
}

/** loneKeys over every block of these views (n in all, in the map's order), each block's key written by `key`. */
function lonePass(
  views: ReadonlyMap<HashView, readonly number[]>,
  n: number,
  key: (v: HashView, contents: readonly number[], k: number, hi: Uint32Array, lo: Uint32Array, at: number) => void,
): Uint8Array {
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  let at = 0;
  for (const [v, contents] of views) for (let k = 0; k < v.length; k++, at++) key(v, contents, k, hi, lo, at);
  return loneKeys(hi, lo);
}

/** The prompts of each read window's runs, by its prompt shapes (made once per window), block size and header mode. */
const books = new WeakMap<ReadonlyMap<string, PrefixShape>, Map<string, RecordedPrompts>>();

/** The prompts the runs of these turns share (made as the first run asks for them). */
export function promptsOf(
  turns: readonly RecordedTurn[],
  shapes: ReadonlyMap<string, PrefixShape>,
  blockSize: number,
  header: HeaderMode,
): RecordedPrompts {
  let byMode = books.get(shapes);
  if (!byMode) books.set(shapes, (byMode = new Map()));
  const key = `${blockSize}:${header}`;
  let p = byMode.get(key);
  if (!p || p.turns !== turns) byMode.set(key, (p = new RecordedPrompts(turns, shapes, blockSize, header)));
  return p;
}
