import { describe, expect, it } from "vitest";
import { EVENT_KINDS, MAX_CHAIN, MAX_HASHES, parseEvent, type EventKind } from "./events";
import { full, minimal, T0, type Raw } from "../../test/events";

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("parseEvent: good events", () => {
  const cases: [string, Raw][] = [
    ...EVENT_KINDS.map((k): [string, Raw] => [`${k} (required fields only)`, minimal[k]()]),
    ...EVENT_KINDS.map((k): [string, Raw] => [`${k} (every optional field)`, full[k]()]),
    [
      "worker.stats counters as numbers",
      minimal["worker.stats"]({ prefix_query_tokens: 918272, prefix_hit_tokens: 0 }),
    ],
    [
      "worker.stats counters as max i64 strings",
      minimal["worker.stats"]({ prefix_query_tokens: "9223372036854775807", prefix_hit_tokens: "0" }),
    ],
    ["worker.stats active == total", minimal["worker.stats"]({ kv_active_blocks: 8192 })],
    [
      "kv.stored with u64 max hash and zero parent",
      minimal["kv.stored"]({ block_hashes: ["0", "18446744073709551615"], parent_hash: "0" }),
    ],
    [
      "request whose lists hold a 1M-token context (62,500 blocks)",
      minimal.request({
        sequence_hashes: Array.from({ length: 62_500 }, (_, i) => String(i)),
        local_hashes: Array.from({ length: 62_500 }, (_, i) => String(i)),
      }),
    ],
    [
      "request extending an earlier one (prefix_of)",
      minimal.request({
        prefix_of: { request_id: "r0", blocks: 120_000 },
        sequence_hashes: ["1"],
        local_hashes: ["2"],
      }),
    ],
    [
      "kv.stored with exactly MAX_HASHES hashes",
      minimal["kv.stored"]({ block_hashes: Array.from({ length: MAX_HASHES }, (_, i) => String(i)) }),
    ],
    [
      "request with cached == input and first token at arrival",
      minimal.request({ cached_tokens: 1000, first_token_at: T0 }),
    ],
    ["request with 128-char id", minimal.request({ id: "x".repeat(128) })],
    ["ts at the lower bound (2000-01-01)", minimal["kv.cleared"]({ ts: 946_684_800_000 })],
    ["unknown extra fields", minimal["worker.down"]({ extra: { nested: true }, another: [1, 2, 3] })],
    ["kv.stored on host", minimal["kv.stored"]({ storage_tier: "host" })],
    ["kv.stored onboarded from disk", minimal["kv.stored"]({ storage_tier: "device", onboarded_from: "disk" })],
    ["kv.removed offloaded from device", minimal["kv.removed"]({ storage_tier: "device", reason: "offloaded" })],
    ["kv.removed from shared storage", minimal["kv.removed"]({ storage_tier: "shared", reason: "ttl" })],
    [
      "request with cached tokens split by tier",
      minimal.request({
        cached_tokens: 900,
        cached_tokens_by_tier: { device: 500, host: 300, disk: 100 },
        prefetched_tokens: 300,
      }),
    ],
    ["request with a split of zero cached tokens", minimal.request({ cached_tokens: 0, cached_tokens_by_tier: {} })],
  ];

  it.each(cases)("%s is accepted", (_name, raw) => {
    const r = parseEvent(raw);
    expect(r).toMatchObject({ ok: true, event: { id: raw.id, kind: raw.kind, ts: raw.ts } });
  });

  it("covers every kind with a good case", () => {
    expect([...EVENT_KINDS].sort()).toEqual(Object.keys(minimal).sort());
  });

  it.each([
    [918272, "918272"],
    ["918272", "918272"],
    [0, "0"],
    [Number.MAX_SAFE_INTEGER, "9007199254740991"],
    ["9223372036854775807", "9223372036854775807"],
  ])("counter %j is normalized to the decimal string %s", (input, out) => {
    const r = parseEvent(minimal["worker.stats"]({ prefix_query_tokens: input, prefix_hit_tokens: input }));
    expect(r).toMatchObject({ ok: true, event: { prefix_query_tokens: out, prefix_hit_tokens: out } });
  });

  it.each(["default", "prod", "staging-eu.1", "us_west_2", "A", "9", "c".repeat(64)])(
    "cluster %s is a cluster name, kept on the event",
    (cluster) => {
      for (const kind of EVENT_KINDS)
        expect(parseEvent(minimal[kind]({ cluster }))).toMatchObject({ ok: true, event: { cluster } });
    },
  );

  it("drops unknown fields from the parsed event", () => {
    const r = parseEvent(minimal["worker.down"]({ extra: 1 }));
    expect(r.ok && "extra" in r.event).toBe(false);
    expect(r.ok).toBe(true);
  });

  it("keeps the optional fields it was given", () => {
    const r = parseEvent(full.request());
    expect(r).toMatchObject({
      ok: true,
      event: {
        session_id: "s1",
        first_token_at: T0 + 150,
        agent_hints: { osl: 200 },
        policy_versions: { retention: 12 },
      },
    });
  });
});

describe("parseEvent: bad events", () => {
  const tooManyHashes = Array.from({ length: MAX_HASHES + 1 }, (_, i) => String(i));
  const overChain = Array.from({ length: MAX_CHAIN + 1 }, (_, i) => String(i));
  const cases: [string, unknown, string, string?][] = [
    // [name, value, error path, optional message fragment]
    ["missing worker_id", { ...minimal["worker.up"](), worker_id: undefined }, "worker_id"],
    ["missing request_id", { ...minimal.request(), request_id: undefined }, "request_id"],
    ["missing ts", { ...minimal["kv.cleared"](), ts: undefined }, "ts"],
    ["missing id", { ...minimal["kv.cleared"](), id: undefined }, "id"],
    ["missing kind", { ...minimal["kv.cleared"](), kind: undefined }, "kind", "is required"],
    [
      "wrong kind (worker.up fields sent as worker.stats)",
      minimal["worker.up"]({ kind: "worker.stats" }),
      "kv_active_blocks",
    ],
    ["unknown kind", minimal["kv.cleared"]({ kind: "kv.exploded" }), "kind", "unknown kind"],
    ["kind that is not a string", minimal["kv.cleared"]({ kind: 5 }), "kind", "unknown kind"],
    [
      "kind named like an Object.prototype member (constructor)",
      minimal["kv.cleared"]({ kind: "constructor" }),
      "kind",
      "unknown kind",
    ],
    [
      "kind named like an Object.prototype member (toString)",
      minimal["kv.cleared"]({ kind: "toString" }),
      "kind",
      "unknown kind",
    ],
    ["kind __proto__", minimal["kv.cleared"]({ kind: "__proto__" }), "kind", "unknown kind"],
    ["empty id", minimal["kv.cleared"]({ id: "" }), "id"],
    ["id over 128 chars", minimal["kv.cleared"]({ id: "x".repeat(129) }), "id"],
    ["id as a number", minimal["kv.cleared"]({ id: 12 }), "id"],
    ["ts in seconds", minimal["kv.cleared"]({ ts: 1_764_417_600 }), "ts", "before 2000-01-01"],
    ["ts in year 2200", minimal["kv.cleared"]({ ts: Date.UTC(2200, 0, 1) }), "ts", "after 2100-01-01"],
    ["ts not an integer", minimal["kv.cleared"]({ ts: T0 + 0.5 }), "ts", "integer"],
    ["ts as a string", minimal["kv.cleared"]({ ts: String(T0) }), "ts"],
    ["arrived_at in seconds", minimal.request({ arrived_at: 1_764_417_600 }), "arrived_at", "before 2000-01-01"],
    ["negative input_tokens", minimal.request({ input_tokens: -1, cached_tokens: 0 }), "input_tokens"],
    ["negative output_tokens", minimal.request({ output_tokens: -5 }), "output_tokens"],
    ["negative reasoning tokens", minimal.reasoning({ tokens: -1 }), "tokens"],
    ["non-integer output_tokens", minimal.request({ output_tokens: 1.5 }), "output_tokens"],
    ["non-integer kv_active_blocks", minimal["worker.stats"]({ kv_active_blocks: 10.25 }), "kv_active_blocks"],
    ["negative counter", minimal["worker.stats"]({ prefix_query_tokens: -1 }), "prefix_query_tokens"],
    ["negative counter string", minimal["worker.stats"]({ prefix_hit_tokens: "-1" }), "prefix_hit_tokens"],
    [
      "decimal fraction counter string",
      minimal["worker.stats"]({ prefix_query_tokens: "12.5" }),
      "prefix_query_tokens",
    ],
    ["non-integer counter number", minimal["worker.stats"]({ prefix_query_tokens: 12.5 }), "prefix_query_tokens"],
    ["counter number above 2^53", minimal["worker.stats"]({ prefix_query_tokens: 2 ** 53 }), "prefix_query_tokens"],
    [
      "counter string above 2^63-1",
      minimal["worker.stats"]({ prefix_query_tokens: "9223372036854775808" }),
      "prefix_query_tokens",
      "2^63-1",
    ],
    [
      "counter string that is not a number",
      minimal["worker.stats"]({ prefix_query_tokens: "abc" }),
      "prefix_query_tokens",
    ],
    ["counter string in exponent form", minimal["worker.stats"]({ prefix_hit_tokens: "1e5" }), "prefix_hit_tokens"],
    [
      "counter string with leading zero",
      minimal["worker.stats"]({ prefix_query_tokens: "0123" }),
      "prefix_query_tokens",
    ],
    ["block hash as a JSON number", minimal["kv.stored"]({ block_hashes: [123] }), "block_hashes.0", "decimal string"],
    ["parent hash as a JSON number", minimal["kv.stored"]({ parent_hash: 42 }), "parent_hash", "decimal string"],
    [
      "block hash above 2^64-1",
      minimal["kv.stored"]({ block_hashes: ["1", "18446744073709551616"] }),
      "block_hashes.1",
      "exceeds 2^64-1",
    ],
    ["block hash with 21 digits", minimal["kv.removed"]({ block_hashes: ["100000000000000000000"] }), "block_hashes.0"],
    [
      "block hash with a leading zero",
      minimal["kv.stored"]({ block_hashes: ["0123"] }),
      "block_hashes.0",
      "unsigned 64-bit",
    ],
    [
      "block hash with non-digits",
      minimal["kv.stored"]({ block_hashes: ["12a"] }),
      "block_hashes.0",
      "unsigned 64-bit",
    ],
    [
      "block hash with a decimal point",
      minimal["kv.stored"]({ block_hashes: ["1.5"] }),
      "block_hashes.0",
      "unsigned 64-bit",
    ],
    [
      "parent hash that is not a number",
      minimal["kv.stored"]({ parent_hash: "abc" }),
      "parent_hash",
      "unsigned 64-bit",
    ],
    ["empty block hash", minimal["kv.removed"]({ block_hashes: [""] }), "block_hashes.0"],
    ["negative block hash", minimal["kv.removed"]({ block_hashes: ["-1"] }), "block_hashes.0"],
    ["hex block hash", minimal["kv.removed"]({ block_hashes: ["0x1f"] }), "block_hashes.0"],
    ["sequence hash with a leading zero", minimal.request({ sequence_hashes: ["00"] }), "sequence_hashes.0"],
    ["empty block_hashes", minimal["kv.stored"]({ block_hashes: [] }), "block_hashes"],
    ["block_hashes over 16,384", minimal["kv.stored"]({ block_hashes: tooManyHashes }), "block_hashes"],
    ["local_hashes over 16,384", minimal["kv.stored"]({ local_hashes: tooManyHashes }), "local_hashes"],
    [
      "sequence_hashes over 131,072 (a request's chain bound)",
      minimal.request({ sequence_hashes: overChain }),
      "sequence_hashes",
    ],
    ["local_hashes over 131,072", minimal.request({ local_hashes: overChain }), "local_hashes"],
    [
      "prefix_of.blocks plus the hashes carried over 131,072",
      minimal.request({ prefix_of: { request_id: "r0", blocks: MAX_CHAIN }, sequence_hashes: ["1"] }),
      "prefix_of.blocks",
      "exceeds 131072",
    ],
    ["prefix_of.blocks negative", minimal.request({ prefix_of: { request_id: "r0", blocks: -1 } }), "prefix_of.blocks"],
    ["prefix_of without request_id", minimal.request({ prefix_of: { blocks: 2 } }), "prefix_of.request_id"],
    [
      "cached_tokens > input_tokens",
      minimal.request({ input_tokens: 100, cached_tokens: 101 }),
      "cached_tokens",
      "exceeds input_tokens",
    ],
    [
      "first_token_at before arrived_at",
      minimal.request({ first_token_at: T0 - 1 }),
      "first_token_at",
      "before arrived_at",
    ],
    ["finished_at before arrived_at", minimal.request({ finished_at: T0 - 1 }), "finished_at", "before arrived_at"],
    ["tool ended before it started", minimal.tool({ ended_at: T0 - 1 }), "ended_at", "before started_at"],
    ["reasoning ended before it started", minimal.reasoning({ ended_at: T0 - 1 }), "ended_at", "before started_at"],
    [
      "kv_active_blocks > kv_total_blocks",
      minimal["worker.stats"]({ kv_active_blocks: 8193 }),
      "kv_active_blocks",
      "exceeds kv_total_blocks",
    ],
    [
      "chosen_worker_id not among candidates",
      minimal["route.decision"]({ chosen_worker_id: "w9" }),
      "chosen_worker_id",
      "not one of the candidates",
    ],
    ["no candidates", minimal["route.decision"]({ candidates: [] }), "candidates"],
    [
      "candidate missing cost",
      minimal["route.decision"]({
        candidates: [{ worker_id: "w1", overlap_blocks: 1, prefill_blocks: 1, decode_blocks: 1 }],
      }),
      "candidates.0.cost",
    ],
    ["bad role", minimal["worker.up"]({ role: "router" }), "role"],
    ["bad planner role", minimal["planner.decision"]({ role: "both" }), "role"],
    ["bad removal reason", minimal["kv.removed"]({ reason: "lru" }), "reason"],
    ["bad api", minimal.request({ api: "completions" }), "api"],
    ["bad request status", minimal.request({ status: "timeout" }), "status"],
    ["bad tool status", minimal.tool({ status: "done" }), "status"],
    ["bad policy_kind", minimal["policy.ack"]({ policy_kind: "billing" }), "policy_kind"],
    ["bad planner action", minimal["planner.decision"]({ action: "scale_sideways" }), "action"],
    ["bad budget unit", minimal.tool({ budget: { unit: "lines", limit: 10 } }), "budget.unit"],
    ["block_size 0", minimal["worker.up"]({ block_size: 0 }), "block_size"],
    [
      "unknown storage tier on kv.stored",
      minimal["kv.stored"]({ storage_tier: "gpu" }),
      "storage_tier",
      "must be one of device, host, disk, shared",
    ],
    [
      "unknown storage tier on kv.removed",
      minimal["kv.removed"]({ storage_tier: "tape" }),
      "storage_tier",
      "must be one of",
    ],
    ["onboarded_from device", minimal["kv.stored"]({ onboarded_from: "device" }), "onboarded_from"],
    [
      "cached_tokens_by_tier not summing to cached_tokens",
      minimal.request({ cached_tokens: 900, cached_tokens_by_tier: { device: 500, host: 300 } }),
      "cached_tokens_by_tier",
      "must sum to cached_tokens (900)",
    ],
    [
      "unknown tier in cached_tokens_by_tier",
      minimal.request({ cached_tokens: 900, cached_tokens_by_tier: { device: 900, nvme: 0 } }),
      "cached_tokens_by_tier",
    ],
    [
      "negative tier tokens",
      minimal.request({ cached_tokens: 900, cached_tokens_by_tier: { device: 1000, host: -100 } }),
      "cached_tokens_by_tier.host",
    ],
    ["negative prefetched_tokens", minimal.request({ prefetched_tokens: -1 }), "prefetched_tokens"],
    ["empty cluster", minimal["worker.stats"]({ cluster: "" }), "cluster", "must be 1 to 64 letters"],
    ["cluster with a space", minimal.request({ cluster: "prod eu" }), "cluster", "must be 1 to 64 letters"],
    ["cluster with a slash", minimal["kv.stored"]({ cluster: "prod/eu" }), "cluster", "must be 1 to 64 letters"],
    ["cluster starting with a dot", minimal["worker.up"]({ cluster: ".prod" }), "cluster", "starting with a letter"],
    ["cluster of 65 characters", minimal["policy.ack"]({ cluster: "c".repeat(65) }), "cluster", "1 to 64"],
    ["cluster that is a number", minimal.tool({ cluster: 7 }), "cluster"],
  ];

  it.each(cases)("%s is rejected naming its path", (_name, value, path, fragment) => {
    const r = parseEvent(value);
    expect(r.ok).toBe(false);
    const error = r.ok ? "" : r.error;
    expect(error).toMatch(new RegExp(`(^|; )${escape(path)}: `));
    if (fragment) expect(error).toContain(fragment);
  });

  it.each([
    ["an array", [minimal["kv.cleared"]()]],
    ["a string", JSON.stringify(minimal["kv.cleared"]())],
    ["null", null],
    ["a number", 42],
    ["undefined", undefined],
  ])("%s is rejected as not an object", (_name, value) => {
    expect(parseEvent(value)).toEqual({ ok: false, error: "event must be a JSON object" });
  });

  it("reports at most three issues and counts the rest", () => {
    const r = parseEvent({ id: "x", kind: "request", ts: T0 });
    expect(r.ok).toBe(false);
    expect(r.ok ? "" : r.error).toMatch(/; and \d+ more$/);
  });

  it.each<[EventKind]>(EVENT_KINDS.map((k) => [k]))("%s without its id is rejected", (kind) => {
    const raw = minimal[kind]();
    delete raw.id;
    expect(parseEvent(raw)).toMatchObject({ ok: false, error: expect.stringMatching(/(^|; )id: /) });
  });
});
