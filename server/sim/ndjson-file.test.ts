import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ChainCompactor } from "./compact-chains";
import { toJsonLine, writeJsonLine } from "./json-lines";
import { NdjsonFile } from "./ndjson-file";
import { runScenario } from "./test-support";
import { toDecimal } from "./hashing";

const dir = mkdtempSync(join(tmpdir(), "switchyard-ndjson-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** Write lines given as pieces ([kind, text]) through a file with a buffer of `bytes`, and read the file back. */
function written(
  bytes: number,
  lines: readonly (readonly (readonly ["text" | "ascii" | "bytes" | "line", string])[])[],
  thread = false,
): string {
  const path = join(dir, `f${files++}.ndjson`);
  const file = new NdjsonFile(path, bytes, { thread });
  for (const pieces of lines) {
    let whole = false;
    for (const [kind, s] of pieces) {
      if (kind === "line") {
        file.write(s);
        whole = true;
      } else if (kind === "bytes") {
        // The piece in the middle of a larger array, as a scratch buffer holds it.
        file.bytes(Buffer.from(`<<${s}>>`, "latin1"), 2, 2 + s.length);
      } else file[kind](s);
    }
    if (!whole) file.endLine();
  }
  file.close();
  return readFileSync(path, "utf8");
}

describe("NdjsonFile: lines written whole or in pieces", () => {
  const long = "7".repeat(100);
  it.each([
    [
      "pieces in a large buffer",
      1024,
      [
        [
          ["text", '{"a":'],
          ["ascii", "1"],
          ["text", "}"],
        ],
      ],
      '{"a":1}\n',
    ],
    ["non-ASCII text as UTF-8", 64, [[["text", '"é→€"']]], '"é→€"\n'],
    [
      "a whole line beside pieces",
      16,
      [
        [["line", "abc"]],
        [
          ["ascii", "d"],
          ["ascii", "e"],
        ],
      ],
      "abc\nde\n",
    ],
    [
      "pieces straddling flushes of a tiny buffer",
      8,
      [
        [
          ["ascii", "0123456"],
          ["ascii", "789"],
          ["text", "ab"],
        ],
      ],
      "0123456789ab\n",
    ],
    [
      "a piece longer than the buffer",
      16,
      [
        [
          ["ascii", "x"],
          ["ascii", long],
          ["text", long],
        ],
      ],
      `x${long}${long}\n`,
    ],
    [
      "bytes beside strings, straddling a flush, longer than the buffer",
      8,
      [
        [
          ["ascii", "ab"],
          ["bytes", "cdefg"],
          ["bytes", "hi"],
          ["bytes", long],
          ["text", "z"],
        ],
      ],
      `abcdefghi${long}z\n`,
    ],
    ["a newline landing on a full buffer", 4, [[["ascii", "abcd"]], [["ascii", "ef"]]], "abcd\nef\n"],
    ["an empty line", 4, [[]], "\n"],
  ] as const)("%s", (_name, bytes, lines, expected) => {
    expect(written(bytes, lines)).toBe(expected);
    // The same bytes when a helper thread writes the full buffers.
    expect(written(bytes, lines, true)).toBe(expected);
  });

  it("with a helper thread: many flushes of a tiny buffer land in order, all written when close returns", () => {
    const lines = Array.from({ length: 5_000 }, (_, i) => [["ascii", `line ${i} `.repeat(1 + (i % 7))] as const]);
    expect(written(16, lines, true)).toBe(lines.map((l) => `${l[0]![1]}\n`).join(""));
  });

  it("with a helper thread: a failed write is thrown by the owner, naming the error", () => {
    // Every write to /dev/full fails (no space left): the owner says so at the latest at close.
    const file = new NdjsonFile("/dev/full", 8, { thread: true });
    expect(() => {
      for (let i = 0; i < 10; i++) file.ascii("0123");
      file.close();
    }).toThrow(/ENOSPC/);
  });

  it("counts lines", () => {
    const file = new NdjsonFile(join(dir, "count.ndjson"), 32);
    file.write("a");
    file.ascii("b");
    file.endLine();
    file.close();
    expect(file.lines).toBe(2);
  });
});

describe("simulated events written into the file's buffer", () => {
  const events = runScenario({ scenario: "pressure", seconds: 240, seed: 2 });

  it.each([
    ["full chains", false, false],
    ["compact chains", true, false],
    ["full chains, hash digits written by the helper thread", false, true],
    ["compact chains, hash digits written by the helper thread", true, true],
  ])("give the same bytes as their line strings (%s)", (_name, compact, thread) => {
    const path = join(dir, `events-${compact}-${thread}.ndjson`);
    // A small buffer so that lines straddle flushes.
    const file = new NdjsonFile(path, 4096, { thread });
    const direct = compact ? new ChainCompactor() : null;
    const viaStrings = compact ? new ChainCompactor() : null;
    const expected: string[] = [];
    for (const e of events) {
      if (direct) direct.write(e, file);
      else writeJsonLine(e, file);
      file.endLine();
      expected.push(viaStrings ? viaStrings.line(e).line : toJsonLine(e));
    }
    file.close();
    expect(expected.length).toBeGreaterThan(1_000);
    const kinds = new Set(events.map((e) => e.kind));
    for (const kind of ["request", "kv.stored", "kv.removed"] as const) expect(kinds).toContain(kind);
    const lines = readFileSync(path, "utf8").split("\n");
    expect(lines.pop()).toBe("");
    expect(lines.length).toBe(expected.length);
    for (let i = 0; i < lines.length; i++) if (lines[i] !== expected[i]) expect(lines[i]).toBe(expected[i]);
    if (!compact) for (const e of events.slice(0, 2_000)) expect(toJsonLine(e)).toBe(JSON.stringify(e));
  });
});

describe("NdjsonFile.u64s: hash lists as halves, digits written by the helper thread or in place", () => {
  const TWO32 = 2 ** 32;
  /** Edge values of the digit groups (10^4, 10^8, 10^12, 2^32, 2^53, 2^63, 2^64 − 1) and a seeded random spread. */
  const values: [number, number][] = [
    [0, 0],
    [0, 9],
    [0, 9_999],
    [0, 10_000],
    [0, 99_999_999],
    [0, 100_000_000],
    [0, 0x7fffffff],
    [0, 0xffffffff],
    [1, 0],
    [232, 3567587327], // 10^12 − 1
    [232, 3567587328], // 10^12
    [0x1fffff, 0xffffffff], // 2^53 − 1
    [0x200000, 0],
    [0x7fffffff, 0xffffffff],
    [0x80000000, 0],
    [0xffffffff, 0xfffffffe],
    [0xffffffff, 0xffffffff],
  ];
  let seed = 12345;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  for (let i = 0; i < 2_000; i++) values.push([next() >>> (i % 32), next() >>> (i % 7)]);
  const words = new Uint32Array(values.flat());
  const items = (from: number, to: number) =>
    values
      .slice(from, to)
      .map(([hi, lo]) => `"${toDecimal(hi, lo)}"`)
      .join(",");

  function viaFile(bytes: number, thread: boolean, ranges: readonly (readonly [number, number])[]): string {
    const path = join(dir, `u64-${files++}.ndjson`);
    const file = new NdjsonFile(path, bytes, { thread });
    for (const [from, to] of ranges) {
      file.ascii("[");
      file.u64s(words, from, to);
      file.text("]é");
      file.endLine();
    }
    file.close();
    return readFileSync(path, "utf8");
  }

  it.each([
    ["one list in a large buffer", 1 << 20],
    ["lists split over many records and buffers (a size not a multiple of 4)", 101],
    ["a buffer too small for one record (digits written in place)", 8],
  ])("%s: toDecimal's digits, as JSON items", (_name, bytes) => {
    const ranges = [
      [0, values.length],
      [3, 4],
      [5, 5],
      [17, 400],
    ] as const;
    const expected = ranges.map(([from, to]) => `[${items(from, to)}]é\n`).join("");
    expect(viaFile(bytes, true, ranges)).toBe(expected);
    expect(viaFile(bytes, false, ranges)).toBe(expected);
  });
});
