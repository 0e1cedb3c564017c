// The block records of one worker's pool (block-pool.ts) and the order in which unreferenced
// blocks are evicted: retention priority first, then least recently released. Each block's
// state is one record of REC int32 in a single typed array, so that an operation on a block
// reads one cache line instead of one per field array.

/** Int32 per record: block b's fields are at b * REC + field. */
export const REC = 6;
/** Prefix-index entry id (-1: free slot). */
export const ENTRY = 0;
export const REF = 1;
/** Generation, bumped each time the slot caches a new block. */
export const GEN = 2;
/** Eviction-list neighbours (-1: none). */
const PREV = 3;
const NEXT = 4;
/**
 * Flag bits, the priority of the block's retention class in bits PRIO_SHIFT… (7 bits: a block is linked under its
 * priority, and its class changes only while it is referenced, so out of the lists) and the class's id in its pool
 * from bit CLASS_SHIFT on (block-classes.ts). Six int32 per record rather than eight with the priority and the list
 * bucket as fields of their own: a quarter less memory for the loops over a request's blocks to walk.
 */
export const FLAGS = 5;
export const PINNED = 1;
export const TTL_QUEUED = 2;
/** Its class has a TTL. */
export const HAS_TTL = 4;
/** In an eviction list. */
const LINKED = 8;
export const PRIO_SHIFT = 8;
/** Priorities are 0…100 (policies.ts): 7 bits. */
const PRIO_MASK = 127;
/** The class id's bits: 15…30 (the word stays positive). */
export const CLASS_SHIFT = 15;
export const MAX_CLASS_IDS = 1 << 16;
/** The flag bits a block keeps when its class is set (the class gives the others: priority, id and HAS_TTL). */
export const KEEP_ON_CLASS = PINNED | TTL_QUEUED | LINKED;

const PRIORITIES = 101;

/** Records of `capacity` free blocks. */
export function blockRecords(capacity: number): Int32Array {
  const rec = new Int32Array(capacity * REC);
  for (let o = 0; o < capacity * REC; o += REC) rec[o + ENTRY] = rec[o + PREV] = rec[o + NEXT] = -1;
  return rec;
}

/** Unreferenced, unpinned cached blocks in one list per priority (0 lowest), least recently linked first. */
export class EvictionLists {
  /** Blocks in the lists. */
  size = 0;
  private heads = new Int32Array(PRIORITIES).fill(-1);
  private tails = new Int32Array(PRIORITIES).fill(-1);
  /** No list below this priority is non-empty. */
  private lowHint = PRIORITIES;

  constructor(private readonly rec: Int32Array) {}

  /** Whether block b is in a list. */
  has(b: number): boolean {
    return (this.rec[b * REC + FLAGS]! & LINKED) !== 0;
  }

  /** The next block to evict, or -1. */
  lowest(): number {
    if (this.size === 0) return -1;
    while (this.lowHint < PRIORITIES && this.heads[this.lowHint]! < 0) this.lowHint++;
    return this.lowHint < PRIORITIES ? this.heads[this.lowHint]! : -1;
  }

  /** Append block b to the list of its record's priority. */
  link(b: number): void {
    const rec = this.rec;
    const o = b * REC;
    const flags = rec[o + FLAGS]!;
    const p = (flags >> PRIO_SHIFT) & PRIO_MASK;
    const tail = this.tails[p]!;
    rec[o + FLAGS] = flags | LINKED;
    rec[o + PREV] = tail;
    rec[o + NEXT] = -1;
    if (tail >= 0) rec[tail * REC + NEXT] = b;
    else this.heads[p] = b;
    this.tails[p] = b;
    this.size++;
    if (p < this.lowHint) this.lowHint = p;
  }

  /** Take block b (in a list) out of it. */
  unlink(b: number): void {
    const rec = this.rec;
    const o = b * REC;
    const flags = rec[o + FLAGS]!;
    const p = (flags >> PRIO_SHIFT) & PRIO_MASK;
    const prev = rec[o + PREV]!;
    const next = rec[o + NEXT]!;
    if (prev >= 0) rec[prev * REC + NEXT] = next;
    else this.heads[p] = next;
    if (next >= 0) rec[next * REC + PREV] = prev;
    else this.tails[p] = prev;
    rec[o + PREV] = rec[o + NEXT] = -1;
    rec[o + FLAGS] = flags & ~LINKED;
    this.size--;
  }

  /** Empty every list (the records' links are left as they are: the pool is being dropped). */
  clear(): void {
    this.size = 0;
    this.heads.fill(-1);
    this.tails.fill(-1);
    this.lowHint = PRIORITIES;
  }
}
