import { describe, expect, it } from "vitest";
import { ClassTable } from "./block-classes";
import { EVICT_NEVER, type RetentionClass } from "./block-pool";
import { CLASS_SHIFT, HAS_TTL, MAX_CLASS_IDS, PRIO_SHIFT } from "./block-records";

const cls = (name: string, priority = 50, extra: Partial<RetentionClass> = {}): RetentionClass => ({
  name,
  priority,
  ttlMs: 0,
  pin: false,
  evictOn: EVICT_NEVER,
  ...extra,
});

/** A table whose pool holds the ids in `held` (and nothing else). */
function table(held: Set<number> = new Set()): ClassTable {
  return new ClassTable(() => {
    const used = new Uint8Array(MAX_CLASS_IDS);
    for (const id of held) used[id] = 1;
    return used;
  });
}

describe("ClassTable", () => {
  it("gives each class object one id, by identity, and the flag bits of its class", () => {
    const t = table();
    const a = cls("a", 90, { ttlMs: 1000 });
    const twin = cls("a", 90, { ttlMs: 1000 });
    const pinned = cls("p", 0, { pin: true });
    const ids = t.idsOf([a, twin, pinned, a]);
    expect([...ids]).toEqual([0, 1, 2, 0]);
    expect(t.idsOf([a, twin, pinned, a])).not.toBe(ids);
    expect([...t.idsOf([pinned])]).toEqual([2]);
    expect(t.byId[1]).toBe(twin);
    const cases: [number, number, number][] = [
      [0, (90 << PRIO_SHIFT) | (0 << CLASS_SHIFT) | HAS_TTL, 0],
      [1, (90 << PRIO_SHIFT) | (1 << CLASS_SHIFT) | HAS_TTL, 0],
      [2, (0 << PRIO_SHIFT) | (2 << CLASS_SHIFT), 1],
    ];
    for (const [id, bits, pin] of cases) {
      expect(t.bits[id]).toBe(bits);
      expect(t.pin[id]).toBe(pin);
      expect(t.bits[id]! >>> CLASS_SHIFT).toBe(id);
    }
  });

  it("keeps a list's ids as long as the list is asked for again", () => {
    const t = table();
    const list = [cls("a"), cls("b")];
    const first = t.idsOf(list);
    t.idsOf([cls("c")]);
    expect(t.idsOf(list)).toBe(first);
  });

  it("reuses the ids no cached block has once every id was given, keeping the held ones and the list being resolved", () => {
    const held = new Set<number>([7, 100]);
    const t = table(held);
    const classes = Array.from({ length: MAX_CLASS_IDS }, (_, i) => cls(`c${i}`));
    for (const c of classes) t.idOf(c);
    const before = t.idsOf([classes[7]!]);
    expect([...before]).toEqual([7]);
    // Three new classes in one list: the first takes a freed id, and the reclaim does not free it for the others.
    const fresh = [cls("x"), cls("y"), cls("z")];
    const ids = [...t.idsOf(fresh)];
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(held.has(id)).toBe(false);
    fresh.forEach((c, k) => expect(t.byId[ids[k]!]).toBe(c));
    // Held ids keep their classes; a freed class asked for again gets a new id.
    expect(t.idOf(classes[7]!)).toBe(7);
    expect(t.idOf(classes[100]!)).toBe(100);
    expect(t.byId[t.idOf(classes[3]!)]).toBe(classes[3]);
  });

  it("keeps the ids just given to a list's first classes when a reclaim runs for the next one", () => {
    const held = new Set(Array.from({ length: MAX_CLASS_IDS }, (_, i) => i));
    held.delete(5);
    held.delete(6);
    const t = table(held);
    for (let i = 0; i < MAX_CLASS_IDS; i++) t.idOf(cls(`c${i}`));
    // Two ids are free for three classes: freeing the first two's again would hand one id to two classes.
    expect(() => t.idsOf([cls("x"), cls("y"), cls("z")])).toThrow(/more than 65536/);
    const two = [...t.idsOf([cls("x2"), cls("y2")])];
    expect(two.sort()).toEqual([5, 6]);
  });

  it("refuses more classes than ids when every id is held", () => {
    const all = new Set(Array.from({ length: MAX_CLASS_IDS }, (_, i) => i));
    const t = table(all);
    for (let i = 0; i < MAX_CLASS_IDS; i++) t.idOf(cls(`c${i}`));
    expect(() => t.idOf(cls("one too many"))).toThrow(/more than 65536 retention classes/);
  });
});
