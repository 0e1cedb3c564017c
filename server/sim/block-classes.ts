import type { RetentionClass } from "./block-pool";
import { CLASS_SHIFT, HAS_TTL, MAX_CLASS_IDS, PRIO_SHIFT } from "./block-records";

// The retention classes of one block pool by small id: a block's record keeps its class's id in its flags word
// (block-records.ts), so that comparing a block's class with a request's reads the record already at hand instead
// of an array of class objects per block. Ids are per pool, given to class objects (by identity) as they are first
// set on a block; the ids of classes no cached block has any longer are reused once every id was given.

const NO_IDS: Int32Array = new Int32Array(0);

export class ClassTable {
  /** Class of each id. */
  readonly byId: RetentionClass[] = [];
  /** Per id: the flags-word bits its class gives a block (priority, id, HAS_TTL). */
  bits = new Int32Array(64);
  /** Per id: 1 when its class pins. */
  pin = new Uint8Array(64);
  private ids = new Map<RetentionClass, number>();
  /** Ids per segment of the class lists seen (a request's `classes`, one list per policy version, type and role). */
  private lists = new WeakMap<readonly RetentionClass[], Int32Array>();
  private lastList: readonly RetentionClass[] | null = null;
  private lastIds: Int32Array = NO_IDS;
  private free: number[] = [];
  private pending: Int32Array = NO_IDS;
  private pendingCount = 0;

  constructor(
    /** Ids still given to a cached block of the pool (asked only once every id was given). */
    private readonly inUse: () => Uint8Array,
  ) {}

  /** The ids of `classes`, by the same index (segment codes). */
  idsOf(classes: readonly RetentionClass[]): Int32Array {
    if (classes === this.lastList) return this.lastIds;
    let ids = this.lists.get(classes);
    if (ids === undefined) {
      ids = new Int32Array(classes.length);
      // The list's ids given so far are kept by a reclaim while the rest are given.
      this.pending = ids;
      for (let k = 0; k < classes.length; k++) {
        ids[k] = this.idOf(classes[k]!);
        this.pendingCount = k + 1;
      }
      this.pending = NO_IDS;
      this.pendingCount = 0;
      this.lists.set(classes, ids);
    }
    this.lastList = classes;
    this.lastIds = ids;
    return ids;
  }

  /** The id of one class, given now if it has none. */
  idOf(cls: RetentionClass): number {
    const known = this.ids.get(cls);
    if (known !== undefined) return known;
    if (this.byId.length === MAX_CLASS_IDS && this.free.length === 0) this.reclaim();
    const id = this.free.length > 0 ? this.free.pop()! : this.byId.length;
    if (id >= this.bits.length) {
      const bits = new Int32Array(2 * this.bits.length);
      bits.set(this.bits);
      this.bits = bits;
      const pin = new Uint8Array(2 * this.pin.length);
      pin.set(this.pin);
      this.pin = pin;
    }
    this.byId[id] = cls;
    this.ids.set(cls, id);
    this.bits[id] = (cls.priority << PRIO_SHIFT) | (id << CLASS_SHIFT) | (cls.ttlMs > 0 ? HAS_TTL : 0);
    this.pin[id] = cls.pin ? 1 : 0;
    return id;
  }

  /** Free the ids no cached block has; the lists' ids are looked up again (some of theirs may be freed). */
  private reclaim(): void {
    const used = this.inUse();
    for (let k = 0; k < this.pendingCount; k++) used[this.pending[k]!] = 1;
    for (let id = 0; id < this.byId.length; id++) {
      if (used[id] === 1) continue;
      this.ids.delete(this.byId[id]!);
      this.free.push(id);
    }
    if (this.free.length === 0) throw new Error(`more than ${MAX_CLASS_IDS} retention classes cached in one pool`);
    this.lists = new WeakMap();
    this.lastList = null;
    this.lastIds = NO_IDS;
  }
}
