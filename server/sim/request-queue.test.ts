import { describe, expect, it } from "vitest";
import { RequestQueue } from "./request-queue";

function drain(q: RequestQueue<number>): number[] {
  const out: number[] = [];
  for (let v = q.front(); v !== undefined; v = q.front()) {
    out.push(v);
    q.shift();
  }
  return out;
}

describe("RequestQueue", () => {
  it.each([
    ["empty", [], [], 0, []],
    ["in arrival order", [1, 2, 3], [], 0, [1, 2, 3]],
    ["a request put back goes first (nothing taken yet)", [1, 2], [9], 0, [9, 1, 2]],
    ["a request put back after some were taken", [1, 2, 3], [9], 2, [9, 3]],
    ["several put back: the last one first", [1, 2, 3], [8, 9], 1, [9, 8, 2, 3]],
  ] as const)("%s", (_name, pushed, back, taken, expected) => {
    const q = new RequestQueue<number>();
    for (const v of pushed) q.push(v);
    for (let i = 0; i < taken; i++) q.shift();
    for (const v of back) q.putFront(v);
    expect(q.length).toBe(expected.length);
    expect(drain(q)).toEqual(expected);
    expect(q.length).toBe(0);
  });

  it("shift on an empty queue changes nothing", () => {
    const q = new RequestQueue<number>();
    q.shift();
    q.push(1);
    expect(q.length).toBe(1);
    expect(q.front()).toBe(1);
  });

  it("keeps order across compaction, with requests put back and pushed in between", () => {
    const q = new RequestQueue<number>();
    const model: number[] = [];
    let next = 0;
    for (let step = 0; step < 5_000; step++) {
      if (step % 7 === 3 && model.length > 0) {
        const v = model.shift()!;
        q.shift();
        q.putFront(v);
        model.unshift(v);
      }
      if (step % 3 !== 0) {
        q.push(next);
        model.push(next++);
      } else if (model.length > 0) {
        expect(q.front()).toBe(model[0]);
        q.shift();
        model.shift();
      }
      expect(q.length).toBe(model.length);
    }
    expect(drain(q)).toEqual(model);
  });
});
