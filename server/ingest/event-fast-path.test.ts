import { describe, expect, it } from "vitest";
import { fastParse } from "./event-fast-path";
import { MAX_CHAIN, MAX_HASHES, MAX_TS, MIN_TS, parseEvent, parseEventBySchema, type EventKind } from "./events";
import { full, minimal, T0, type Raw } from "../../test/events";
import { ChainCompactor } from "../sim/compact-chains";
import { Simulation } from "../sim/engine";
import { scenarioByName } from "../sim/scenarios";

// The fast path's contract: parseEvent (fast path first) gives exactly what the schema alone gives, for good and
// bad input alike: the same event with its keys in the same order, or the same error.

const FAST_KINDS: EventKind[] = [
  "kv.stored",
  "kv.removed",
  "worker.stats",
  "request",
  "route.decision",
  "tool",
  "reasoning",
];

/** The simulator's stream as it sends it (compact chains with prefix_of), decoded: 90 s of the steady scenario. */
function simEvents(): Raw[] {
  const sim = new Simulation({ scenario: scenarioByName("steady")!, seed: 3, startMs: T0 });
  const compactor = new ChainCompactor();
  const out: Raw[] = [];
  sim.setSink((e) => {
    const line = compactor.line(e);
    out.push(JSON.parse(line.line) as Raw);
    if (line.full) out.push(JSON.parse(line.full()) as Raw);
  });
  sim.runUntil(T0 + 90_000);
  return out;
}

/** Same result both ways: deep and strictly equal (undefined-valued keys count) and the same key order. */
function expectSame(value: unknown) {
  const fast = parseEvent(value);
  const schema = parseEventBySchema(value);
  expect(fast).toStrictEqual(schema);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(schema));
}

const hashes = (n: number) => Array.from({ length: n }, (_, i) => String(i));
/** Values that sit on or just past a bound somewhere in the schema, or have the wrong type. */
const PROBES: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  -1,
  1,
  1.5,
  -1000,
  -1001,
  1000,
  1001,
  64,
  1e6,
  1e6 + 1,
  1e7,
  1e7 + 1,
  1e8,
  1e8 + 1,
  86_400_000,
  86_400_000.5,
  1e9,
  1e9 + 1,
  1_048_576,
  1_048_577,
  MAX_CHAIN,
  MAX_CHAIN + 1,
  1e12,
  1e12 + 1,
  1e15,
  1e15 + 1,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  NaN,
  Infinity,
  MIN_TS - 1,
  MIN_TS,
  MAX_TS,
  MAX_TS + 1,
  T0 - 1,
  T0 + 0.5,
  "",
  "0",
  "00",
  "01",
  "7",
  " 7",
  "-1",
  "1e3",
  "x",
  "x".repeat(64),
  "x".repeat(65),
  "x".repeat(128),
  "x".repeat(129),
  "x".repeat(256),
  "x".repeat(257),
  "9223372036854775807",
  "9223372036854775808",
  "18446744073709551615",
  "18446744073709551616",
  "99999999999999999999",
  "123456789012345678901",
  "device",
  "host",
  "disk",
  "shared",
  "ttl",
  "ok",
  "error",
  "succeeded",
  "tokens",
  "bytes",
  "responses",
  "w1",
  "-w1",
  "prod eu",
  "a/b",
  "x".repeat(64),
  "x".repeat(65),
  "w2",
  "r0",
  [],
  ["1"],
  ["01"],
  [1],
  ["1", null],
  hashes(MAX_HASHES),
  hashes(MAX_HASHES + 1),
  {},
  { device: 800 },
  { device: 500, host: 300 },
  { request_id: "r0", blocks: 2 },
  { unit: "tokens", limit: 1 },
  { worker_id: "w1", overlap_blocks: 1, prefill_blocks: 1, decode_blocks: 1, cost: 1 },
];

/** Every variant of `base` with one key (nested keys too) replaced by each probe, removed, or a key added. */
function* mutations(base: Raw): Generator<Raw> {
  yield { ...base, unknown_key: 1 };
  yield { ...base, __proto__: 1 } as Raw;
  for (const key of Object.keys(base)) {
    if (key === "kind") continue;
    const { [key]: orig, ...rest } = base;
    yield rest;
    for (const p of PROBES) yield { ...base, [key]: p };
    if (typeof orig === "number") for (const d of [-1, 1, -1000]) yield { ...base, [key]: orig + d };
    if (Array.isArray(orig) && orig.length > 0 && typeof orig[0] === "object")
      for (const inner of mutations(orig[0] as Raw)) yield { ...base, [key]: [inner, ...orig.slice(1)] };
    else if (typeof orig === "object" && orig !== null && !Array.isArray(orig))
      for (const inner of mutations(orig as Raw)) yield { ...base, [key]: inner };
  }
}

const bases: [string, Raw][] = [
  ...FAST_KINDS.map((k): [string, Raw] => [`${k} minimal`, minimal[k]()]),
  ...FAST_KINDS.map((k): [string, Raw] => [`${k} with every optional field`, full[k]()]),
  ["request with prefix_of", minimal.request({ prefix_of: { request_id: "r0", blocks: 2 }, sequence_hashes: ["1"] })],
  [
    "request with cached tokens by tier",
    full.request({ cached_tokens_by_tier: { device: 500, host: 200, disk: 100 }, onboard_ms: 3.5 }),
  ],
  [
    "request with latencies",
    full.request({ prefetched_tokens: 10, itl_ms_mean: 12.5, itl_ms_p95: 40, preemptions: 1 }),
  ],
  ["kv.stored on a lower tier", full["kv.stored"]({ storage_tier: "host", onboarded_from: "disk" })],
  ["kv.removed from a tier", full["kv.removed"]({ storage_tier: "disk" })],
  ["worker.stats with optional counters", full["worker.stats"]({ preemptions: 3, batch_tokens: 512.5 })],
  ...FAST_KINDS.map((k): [string, Raw] => [`${k} from a named cluster`, full[k]({ cluster: "staging-eu.1" })]),
];

describe("parseEvent's fast path agrees with the schema", () => {
  const sim = simEvents();

  it("takes every event of the simulator's stream, building the schema's event", () => {
    const kinds = new Set<string>();
    let fast = 0;
    for (const e of sim) {
      const kind = e.kind as EventKind;
      if (!FAST_KINDS.includes(kind)) continue;
      kinds.add(kind);
      expect(fastParse(kind, e), `${kind} ${String(e.id)}`).not.toBeNull();
      expectSame(e);
      fast++;
    }
    expect([...kinds].sort()).toEqual([...FAST_KINDS].sort());
    expect(fast).toBeGreaterThan(1_000);
  });

  it.each(bases)("%s: accepted the same, and every variant near a bound judged the same", (_name, base) => {
    expect(fastParse(base.kind as EventKind, base)).not.toBeNull();
    let variants = 0;
    for (const v of mutations(base)) {
      expectSame(v);
      variants++;
    }
    expect(variants).toBeGreaterThan(PROBES.length);
  });

  it("simulator events with each key replaced are judged the same", () => {
    const sample = FAST_KINDS.map((k) => sim.find((e) => e.kind === k && (k !== "request" || "prefix_of" in e))!);
    for (const base of sample) for (const v of mutations(base)) expectSame(v);
  });

  it.each([
    ["not an object", "event"],
    ["an array", [1]],
    ["no kind", { id: "x" }],
    ["kinds the fast path leaves to the schema", minimal["worker.up"]()],
  ])("%s: the schema's result", (_name, v) => expectSame(v));
});
