import { describe, expect, it } from "vitest";
import { EventQueue } from "./heap";
import { Rng } from "./prng";

describe("EventQueue: callbacks by time, ties in the order scheduled", () => {
  it.each([
    { name: "empty", times: [], order: [] },
    { name: "one", times: [5], order: [0] },
    { name: "ascending", times: [1, 2, 3], order: [0, 1, 2] },
    { name: "descending", times: [3, 2, 1], order: [2, 1, 0] },
    { name: "ties keep insertion order", times: [4, 1, 4, 1, 4], order: [1, 3, 0, 2, 4] },
    { name: "infinite times last", times: [Infinity, 0, -Infinity], order: [2, 1, 0] },
  ])("$name", ({ times, order }) => {
    const q = new EventQueue();
    const ran: number[] = [];
    times.forEach((t, i) => q.push(t, () => ran.push(i)));
    expect(q.size).toBe(times.length);
    while (q.size > 0) q.shift()();
    expect(ran).toEqual(order);
    expect(q.peekTime()).toBe(Infinity);
    expect(q.pop()).toBeUndefined();
  });

  it("matches a stable sort by time over interleaved pushes and pops, past its first growth", () => {
    const rng = new Rng(3);
    const q = new EventQueue();
    const ran: number[] = [];
    /** Pending callbacks' keys in the order they must run. */
    const pending: { t: number; k: number }[] = [];
    const wanted: string[] = [];
    const got: string[] = [];
    let k = 0;
    for (let step = 0; step < 12_000; step++) {
      if (pending.length === 0 || step < 2_500 || rng.next() < 0.5) {
        const t = rng.int(0, 500);
        const id = k++;
        let at = pending.length;
        while (at > 0 && pending[at - 1]!.t > t) at--;
        pending.splice(at, 0, { t, k: id });
        q.push(t, () => ran.push(id));
      } else {
        const want = pending.shift()!;
        wanted.push(`${want.k}@${want.t}`);
        const t = q.peekTime();
        const e = q.pop()!;
        e.run();
        got.push(`${ran[ran.length - 1]}@${t === e.t ? t : NaN}`);
      }
    }
    expect(got).toEqual(wanted);
    expect(q.size).toBe(pending.length);
  });
});
