import { describe, expect, it } from "vitest";
import { candidatesJson, encodeCandidates, type StoredCandidate } from "./candidates";

const c = (worker_id: string, overlap: number, prefill: number, decode: number, cost?: number): StoredCandidate => ({
  worker_id,
  overlap_blocks: overlap,
  prefill_blocks: prefill,
  decode_blocks: decode,
  cost: cost ?? prefill + decode - overlap,
});

describe("encodeCandidates / candidatesJson", () => {
  const cases: { name: string; list: StoredCandidate[]; stored?: string }[] = [
    {
      name: "overlap 0, default cost",
      list: [c("w1", 0, 1103, 0), c("w2", 0, 1103, 7)],
      stored: "w1,1103,0;w2,1103,7",
    },
    { name: "overlap, default cost", list: [c("w1", 265, 631, 7730)], stored: "w1,631,7730,265" },
    { name: "cost not the default", list: [c("w1", 0, 10, 5, 12.5)], stored: "w1,10,5,0,12.5" },
    {
      name: "fractional cost with overlap",
      list: [c("w1", 3, 10, 5, 0.1 + 0.2)],
      stored: "w1,10,5,3,0.30000000000000004",
    },
    { name: "cost 0 below a negative default", list: [c("w1", 50, 10, 5, 0)], stored: "w1,10,5,50,0" },
    { name: "huge cost", list: [c("w1", 0, 1, 1, 1e15)], stored: "w1,1,1,0,1000000000000000" },
    { name: "unicode and quotes in ids", list: [c('gpu-"ä"\\1', 2, 3, 4), c("ü", 0, 0, 0)] },
    { name: "id with a comma: JSON kept", list: [c("w,1", 0, 1, 1)], stored: JSON.stringify([c("w,1", 0, 1, 1)]) },
    { name: "id with a semicolon: JSON kept", list: [c("a", 0, 1, 1), c("w;1", 0, 1, 1)] },
    { name: "id starting with [: JSON kept", list: [c("[w]", 0, 1, 1)], stored: JSON.stringify([c("[w]", 0, 1, 1)]) },
    { name: "large block counts", list: [c("w9", 1_000_000_000, 1_000_000_000, 1_000_000_000)] },
    { name: "1,024 candidates", list: Array.from({ length: 1024 }, (_, i) => c(`w${i}`, i % 3, i, 2 * i)) },
  ];
  it.each(cases)("$name: reads back exactly JSON.stringify of the list", ({ list, stored }) => {
    const text = encodeCandidates(list);
    if (stored !== undefined) expect(text).toBe(stored);
    expect(candidatesJson(text)).toBe(JSON.stringify(list));
  });

  it("is much smaller than the JSON for a typical eight-worker decision", () => {
    const list = Array.from({ length: 8 }, (_, i) => c(`w${i + 1}`, i % 2 ? 265 : 0, 600 + i * 17, 7000 + i * 101));
    expect(encodeCandidates(list).length).toBeLessThan(JSON.stringify(list).length / 4);
  });

  it.each(["", "w1", "w1,2", "w1,2,3,4,5,6", "w1,2,3;"])("refuses a malformed stored list %j", (stored) => {
    expect(() => candidatesJson(stored)).toThrow(/bad stored candidate/);
  });
});
