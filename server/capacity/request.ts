import { CLUSTER_NAME, CLUSTER_NAME_RULE, DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { parseCapacities } from "../analysis/capacity/report";
import { MAX_BYTES_PER_TOKEN } from "../analysis/capacity/model-facts";
import { AppError } from "../errors";
import type { WorkerRole } from "../sim/types";
import type { CapacityScope } from "./compute";

// GET /api/capacity and /api/capacity/replay as query strings, checked before anything is read: every parameter named
// in its error, unknown ones refused (a misspelt one would silently be ignored otherwise). Pure.

export const CAPACITY_DEFAULT_WINDOW_MS = 3_600_000;
export const CAPACITY_MAX_WINDOW_MS = 24 * 3_600_000;
/** Replayed capacities per request at most (each is one replay of the window). */
export const MAX_REPLAYED = 4;
/** Tier read bandwidth when none is given: a PCIe 5 ×16 link's practical host-to-device rate. */
export const DEFAULT_TIER_GBPS = 25;

export type CapacityQuery = CapacityScope & {
  from: number;
  to: number;
  capacities: number[] | null;
  target: number | null;
  bytesPerToken: number | null;
  tierGbps: number;
  format: "json" | "csv";
};

const KNOWN = new Set([
  "from",
  "to",
  "cluster",
  "model",
  "role",
  "capacities",
  "target",
  "bytes_per_token",
  "tier_gbps",
  "format",
]);
const ROLES: readonly WorkerRole[] = ["aggregated", "prefill", "decode"];

const bad = (param: string, message: string) =>
  new AppError("BAD_REQUEST", `${param} ${message}`, { errors: [{ path: param, message }] });

/** A whole number of Unix ms, or null when absent. */
function millis(q: URLSearchParams, name: string): number | null {
  const v = q.get(name);
  if (v === null || v === "") return null;
  if (!/^\d{1,16}$/.test(v)) throw bad(name, "must be a time in Unix milliseconds");
  return Number(v);
}

/** A number in [min, max], or null when absent. */
function numberIn(q: URLSearchParams, name: string, min: number, max: number, rule: string): number | null {
  const v = q.get(name);
  if (v === null || v === "") return null;
  const n = /^\d+(\.\d+)?$/.test(v) ? Number(v) : NaN;
  if (!(n >= min && n <= max)) throw bad(name, rule);
  return n;
}

/** The query of GET /api/capacity at `now`; AppError 400 naming the parameter that is wrong. */
export function parseCapacityQuery(q: URLSearchParams, now: number): CapacityQuery {
  const unknown = [...new Set(q.keys())].filter((k) => !KNOWN.has(k));
  if (unknown.length) throw bad(unknown[0]!.slice(0, 40), `is not a parameter (known: ${[...KNOWN].join(", ")})`);
  for (const k of KNOWN) if (q.getAll(k).length > 1) throw bad(k, "is given more than once");
  const to = millis(q, "to") ?? now;
  const from = millis(q, "from") ?? to - CAPACITY_DEFAULT_WINDOW_MS;
  if (from >= to) throw bad("to", "must be after from");
  if (to - from > CAPACITY_MAX_WINDOW_MS) throw bad("from", "is more than 24 h before to: choose a shorter window");
  const cluster = q.get("cluster") || DEFAULT_CLUSTER;
  if (!CLUSTER_NAME.test(cluster)) throw bad("cluster", CLUSTER_NAME_RULE);
  const model = q.get("model") || null;
  if (model !== null && (model.length > 200 || !/^[\x21-\x7e]+$/.test(model)))
    throw bad("model", "must be 1 to 200 printable characters without spaces");
  const role = q.get("role") || null;
  if (role !== null && !ROLES.includes(role as WorkerRole)) throw bad("role", `must be one of ${ROLES.join(", ")}`);
  let capacities: number[] | null;
  try {
    capacities = parseCapacities(q.get("capacities"));
  } catch (err) {
    throw bad("capacities", (err as Error).message.replace(/^capacities:? ?/, ""));
  }
  const target = numberIn(q, "target", 0, 1, "must be a hit rate above 0 and at most 1 (e.g. 0.8)");
  if (target === 0) throw bad("target", "must be a hit rate above 0 and at most 1 (e.g. 0.8)");
  const bpt = numberIn(
    q,
    "bytes_per_token",
    1,
    MAX_BYTES_PER_TOKEN,
    `must be a whole number from 1 to ${MAX_BYTES_PER_TOKEN}`,
  );
  if (bpt !== null && !Number.isInteger(bpt))
    throw bad("bytes_per_token", `must be a whole number from 1 to ${MAX_BYTES_PER_TOKEN}`);
  const tierGbps =
    numberIn(q, "tier_gbps", 0.1, 10_000, "must be a bandwidth in GB/s from 0.1 to 10000") ?? DEFAULT_TIER_GBPS;
  const format = q.get("format") || "json";
  if (format !== "json" && format !== "csv") throw bad("format", "must be json or csv");
  return {
    cluster,
    model,
    role: role as WorkerRole | null,
    from,
    to,
    capacities,
    target,
    bytesPerToken: bpt,
    tierGbps,
    format,
  };
}

/** The capacities of a replay request: 1 to MAX_REPLAYED of them, each at least 1 block. */
export function replayCapacities(q: CapacityQuery): number[] {
  const c = q.capacities;
  if (!c || c.length === 0)
    throw bad("capacities", "lists the per-worker block counts to replay (e.g. capacities=10500,21000)");
  if (c.length > MAX_REPLAYED) throw bad("capacities", `takes at most ${MAX_REPLAYED} block counts to replay`);
  if (c[0]! < 1) throw bad("capacities", "replays caches of at least 1 block");
  return c;
}

/** What retention left of a window: where its kept part starts, and what was deleted before it. */
export type KeptWindow = { from: number; deleted: string[] };

/**
 * The part of [from, to) retention still keeps at `now`: requests (and their chains) are kept `days` days, worker
 * samples (today's capacity) `rawHours` hours. A window whose requests are all past their retention is refused (422
 * Unprocessable); one partly past it keeps its later part, and the notes say which part went.
 */
export function keptWindow(from: number, to: number, now: number, days: number, rawHours: number): KeptWindow {
  const fmt = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");
  const requestsCut = now - days * 86_400_000;
  if (to <= requestsCut)
    throw new AppError(
      "UNPROCESSABLE",
      `the window ended before ${fmt(requestsCut)}: requests older than ${days} days (SWITCHYARD_RETENTION_DAYS) were already deleted`,
    );
  const deleted: string[] = [];
  if (from < requestsCut)
    deleted.push(
      `requests before ${fmt(requestsCut)} were already deleted (kept ${days} days, SWITCHYARD_RETENTION_DAYS): the curves cover ${fmt(requestsCut)} to ${fmt(to)}`,
    );
  const samplesCut = now - rawHours * 3_600_000;
  if (from < samplesCut)
    deleted.push(
      `worker samples before ${fmt(samplesCut)} were already deleted (kept ${rawHours} h, SWITCHYARD_RAW_RETENTION_HOURS): ${to <= samplesCut ? "today's capacity is each worker's last reported kv_total_blocks" : "today's capacity is read from the samples kept"}`,
    );
  return { from: Math.max(from, requestsCut), deleted };
}
