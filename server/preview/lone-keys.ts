// Which of many 64-bit keys (block hashes, content ids) occur exactly once. The keys are first split by a few bits
// of a mix of each into partitions of at most about a thousand, so that each partition's duplicate check runs in a
// table that stays in the processor's cache: one table of a million keys would be missed on nearly every key (the
// check is done once per replay window, over every block of its prompts, to spare each run a lookup per block).

/** Keys per partition at most (before the split by bits rounds it). */
const PARTITION = 1024;

/**
 * 1 at i when key i (halves hi[i], lo[i], as unsigned 32-bit numbers) occurs nowhere else among the n keys, 0 when it
 * does. Exact: keys are compared in full.
 */
export function loneKeys(hi: Uint32Array, lo: Uint32Array, n: number = hi.length): Uint8Array {
  if (lo.length < n || hi.length < n) throw new Error("loneKeys: fewer halves than keys");
  const lone = new Uint8Array(n).fill(1);
  let bits = 0;
  while (n >>> bits > PARTITION && bits < 16) bits++;
  const parts = 1 << bits;
  const partOf = (h: number, l: number): number =>
    bits === 0 ? 0 : Math.imul(h ^ Math.imul(l, 0x85ebca6b), 0x9e3779b1) >>> (32 - bits);

  // Counting sort of the keys (and where each came from) by partition.
  const start = new Uint32Array(parts + 1);
  for (let i = 0; i < n; i++) start[partOf(hi[i]!, lo[i]!) + 1]!++;
  let largest = 0;
  for (let p = 0; p < parts; p++) {
    largest = Math.max(largest, start[p + 1]!);
    start[p + 1]! += start[p]!;
  }
  const next = start.slice(0, parts);
  const ph = new Uint32Array(n);
  const pl = new Uint32Array(n);
  const from = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const h = hi[i]!;
    const l = lo[i]!;
    const j = next[partOf(h, l)]!++;
    ph[j] = h;
    pl[j] = l;
    from[j] = i;
  }

  // Each partition in an open-addressing table at most half full: slot holds a key's sorted index + 1 (0: empty).
  let size = 2;
  while (size < 2 * largest) size <<= 1;
  const table = new Int32Array(size);
  for (let p = 0; p < parts; p++) {
    const a = start[p]!;
    const b = start[p + 1]!;
    let slots = 2;
    while (slots < 2 * (b - a)) slots <<= 1;
    const m = slots - 1;
    table.fill(0, 0, slots);
    for (let j = a; j < b; j++) {
      const h = ph[j]!;
      const l = pl[j]!;
      for (let s = Math.imul(l ^ Math.imul(h, 0x27d4eb2d), 0x165667b1) & m; ; s = (s + 1) & m) {
        const v = table[s]!;
        if (v === 0) {
          table[s] = j + 1;
          break;
        }
        if (ph[v - 1] === h && pl[v - 1] === l) {
          lone[from[v - 1]!] = 0;
          lone[from[j]!] = 0;
          break;
        }
      }
    }
  }
  return lone;
}
