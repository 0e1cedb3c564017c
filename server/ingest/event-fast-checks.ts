import { LiftedHashes } from "../../db/codecs/chains";
import {
  badHashIndex,
  BUDGET_UNITS,
  CLUSTER_NAME,
  MAX_BLOCKS,
  MAX_ID,
  MAX_LATENCY_MS,
  MAX_TOKENS,
  MAX_TS,
  MIN_TS,
  REMOVAL_REASONS,
  REQUEST_APIS,
  REQUEST_STATUSES,
  STORAGE_TIERS,
  TOOL_STATUSES,
} from "./event-bounds";

// The field checks of parseEvent's fast path (event-fast-path.ts): each is true only for a value the schema in
// events.ts accepts for that field (a few are stricter, which only sends a value to the schema).

export type Obj = Record<string, unknown>;
/** The fast path gave up on this value: the schema decides. */
export const GIVE_UP = null;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
export const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;
export const isNum = (v: unknown, min: number, max: number): v is number =>
  typeof v === "number" && Number.isFinite(v) && v >= min && v <= max;
export const isStr = (v: unknown, min: number, max: number): v is string =>
  typeof v === "string" && v.length >= min && v.length <= max;
export const isId = (v: unknown): v is string => typeof v === "string" && v.length >= 1 && v.length <= MAX_ID;
export const isTs = (v: unknown): v is number => isInt(v, MIN_TS, MAX_TS);
export const isTokens = (v: unknown): v is number => isInt(v, 0, MAX_TOKENS);
export const isBlocks = (v: unknown): v is number => isInt(v, 0, MAX_BLOCKS);
export const isLatency = (v: unknown): v is number => isNum(v, 0, MAX_LATENCY_MS);
const oneOf = (values: readonly string[]) => {
  const set = new Set<unknown>(values);
  return (v: unknown): v is string => set.has(v);
};
export const isTier = oneOf(STORAGE_TIERS);
export const isLowerTier = oneOf(STORAGE_TIERS.filter((t) => t !== "device"));
export const isReason = oneOf(REMOVAL_REASONS);
export const isApi = oneOf(REQUEST_APIS);
export const isRequestStatus = oneOf(REQUEST_STATUSES);
export const isToolStatus = oneOf(TOOL_STATUSES);
export const isBudgetUnit = oneOf(BUDGET_UNITS);

export const isHashes = (v: unknown, min: number, max: number): v is string[] =>
  Array.isArray(v) && v.length >= min && v.length <= max && badHashIndex(v) < 0;
/** isHashes, or a list lift-hashes.ts already read and checked (its length within bounds). */
export const isHashList = (v: unknown, min: number, max: number): boolean =>
  v instanceof LiftedHashes ? v.length >= min && v.length <= max : isHashes(v, min, max);
export const isHash = (v: unknown): v is string => typeof v === "string" && badHashIndex([v]) < 0;

/** A cumulative counter (event-fields.ts `counter`) as its normalized decimal string, or null when not plainly valid. */
export function counterText(v: unknown): string | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v >= 0 ? String(v) : null;
  if (typeof v !== "string") return null;
  const n = v.length;
  if (n === 0 || n > 19 || (n > 1 && v.charCodeAt(0) === 48)) return null;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return null;
  }
  return n === 19 && v > "9223372036854775807" ? null : v;
}

/**
 * Copy an optional field when `check` passes; false when it is given and fails (or is given as undefined, which the
 * schema keeps as a key of its own).
 */
export function optional(out: Obj, v: Obj, key: string, check: (x: unknown) => boolean): boolean {
  const x = v[key];
  if (x === undefined) return !(key in v);
  if (!check(x)) return false;
  out[key] = x;
  return true;
}

/** The head every event starts with: id, ts and an optional source (events.ts `base`). */
export const isCluster = (x: unknown): x is string => typeof x === "string" && CLUSTER_NAME.test(x);

export function head(v: Obj): Obj | null {
  const out: Obj = {};
  if (!isId(v.id) || !isTs(v.ts)) return GIVE_UP;
  out.id = v.id;
  out.ts = v.ts;
  if (!optional(out, v, "source", (x) => isStr(x, 0, MAX_ID))) return GIVE_UP;
  if (!optional(out, v, "cluster", isCluster)) return GIVE_UP;
  return out;
}

/** head, then the optional session_id and trajectory_id (events.ts `session`), then kind. */
export function sessionHead(v: Obj): Obj | null {
  const out = head(v);
  if (!out || !optional(out, v, "session_id", isId) || !optional(out, v, "trajectory_id", isId)) return GIVE_UP;
  out.kind = v.kind;
  return out;
}
