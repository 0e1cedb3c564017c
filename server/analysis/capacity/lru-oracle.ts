import { SEG_TOOLS } from "../../sim/stream";
import { CAPACITY_CLASSES, chainLength, prepareWindow, shapeOf, type CapacityWindow } from "./window-turns";

// The yardstick for the stack algorithm: an LRU cache of each size simulated directly (an insertion-ordered Map per
// cache), prefix semantics as an engine applies them. Blocks are named by their prefix through a table of (parent,
// hash) pairs, not by the rolling key. Slow (a pass per size): for tests and the bench's small window only.

export type OraclePoint = { blocks: number; hitTokens: number; byClass: number[] };

/** Hit tokens of the window's turns for each cache size, per worker (recorded routing) or one shared cache. */
export function bruteForceLru(w: CapacityWindow, scope: "worker" | "shared", sizes: readonly number[]): OraclePoint[] {
  const p = prepareWindow(w);
  const prefixIds = new Map<string, number>();
  const keysOf = (pairs: Uint32Array): number[] => {
    const out: number[] = [];
    let parent = -1;
    for (let i = 0; i < pairs.length >> 1; i++) {
      const k = `${parent}:${pairs[2 * i]}:${pairs[2 * i + 1]}`;
      let id = prefixIds.get(k);
      if (id === undefined) prefixIds.set(k, (id = prefixIds.size));
      out.push(id);
      parent = id;
    }
    return out;
  };
  const chains = new Map<number, number[]>();
  for (const i of p.order) if (chainLength(p.turns[i]!) > 0) chains.set(i, keysOf(p.turns[i]!.blocks!));
  return sizes.map((size) => {
    const caches = new Map<string, Map<number, true>>();
    const byClass = CAPACITY_CLASSES.map(() => 0);
    for (const i of p.order) {
      const t = p.turns[i]!;
      const keys = chains.get(i);
      if (!keys) continue;
      const name = scope === "shared" ? "" : t.workerId;
      if (name === null) continue;
      let cache = caches.get(name);
      if (!cache) caches.set(name, (cache = new Map()));
      let hits = 0;
      while (hits < keys.length && cache.has(keys[hits]!)) hits++;
      if (t.phase === "window") {
        const s = shapeOf(p.shapes, t);
        for (let k = 0; k < hits; k++) {
          const cls = k < s.firstBlocks ? s.firstClass : k < s.sharedBlocks ? SEG_TOOLS : s.own;
          byClass[cls]! += Math.max(0, Math.min(p.blockSize, t.inputTokens - k * p.blockSize));
        }
      }
      if (size === 0) continue;
      for (let k = keys.length - 1; k >= 0; k--) {
        cache.delete(keys[k]!);
        cache.set(keys[k]!, true);
        if (cache.size > size) cache.delete(cache.keys().next().value!);
      }
    }
    return { blocks: size, hitTokens: byClass.reduce((a, b) => a + b, 0), byClass };
  });
}
