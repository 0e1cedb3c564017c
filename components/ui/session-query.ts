import type { SortKey } from "@/db/store/session-list";

// The sessions list's filters and sort as URL parameters, so a link or a reload shows the same list. Pure.

export type SessionFilters = {
  harness: string;
  sessionType: string;
  status: "" | "active" | "ended" | "error";
  minTurns: string;
  minHit: string;
  maxHit: string;
  subagents: "" | "yes" | "no";
  workerId: string;
  search: string;
};
export type SessionSort = { key: SortKey; dir: "asc" | "desc" };

export const EMPTY_FILTERS: SessionFilters = {
  harness: "",
  sessionType: "",
  status: "",
  minTurns: "",
  minHit: "",
  maxHit: "",
  subagents: "",
  workerId: "",
  search: "",
};
export const DEFAULT_SORT: SessionSort = { key: "lastAt", dir: "desc" };

/** URL parameter of each filter (short, stable: they are in shared links). */
const PARAM: Record<keyof SessionFilters, string> = {
  harness: "harness",
  sessionType: "type",
  status: "status",
  minTurns: "min_turns",
  minHit: "min_cached",
  maxHit: "max_cached",
  subagents: "subagents",
  workerId: "worker",
  search: "q",
};
/** Every sort key the list procedure accepts (a Record, so the compiler holds it complete). */
const SORT_KEYS: Record<SortKey, true> = {
  lastAt: true,
  firstAt: true,
  turns: true,
  agents: true,
  inputTokens: true,
  cachedShare: true,
  recomputed: true,
  cold: true,
  diverged: true,
  evicted: true,
  routedAway: true,
  ttftP50: true,
  toolWaitMs: true,
  duration: true,
  sessionId: true,
};
const MAX_LEN = 128;
const STATUSES = ["", "active", "ended", "error"] as const;
const YES_NO = ["", "yes", "no"] as const;
const number = (s: string) => (/^\d{1,7}(\.\d+)?$/.test(s) ? s : "");
const oneOf = <T extends string>(xs: readonly T[], s: string): T =>
  (xs as readonly string[]).includes(s) ? (s as T) : xs[0]!;

/** Filters and sort from URL parameters; an unknown or malformed value is the default (a hand-edited link never breaks the page). */
export function parseSessionQuery(params: { get(name: string): string | null }): {
  filters: SessionFilters;
  sort: SessionSort;
} {
  const raw = (k: keyof SessionFilters) => (params.get(PARAM[k]) ?? "").slice(0, MAX_LEN);
  const key = params.get("sort") ?? "";
  return {
    filters: {
      harness: raw("harness"),
      sessionType: raw("sessionType"),
      status: oneOf(STATUSES, raw("status")),
      minTurns: number(raw("minTurns")),
      minHit: number(raw("minHit")),
      maxHit: number(raw("maxHit")),
      subagents: oneOf(YES_NO, raw("subagents")),
      workerId: raw("workerId"),
      search: raw("search"),
    },
    sort: {
      key: Object.hasOwn(SORT_KEYS, key) ? (key as SortKey) : DEFAULT_SORT.key,
      dir: params.get("dir") === "asc" ? "asc" : "desc",
    },
  };
}

/** `base` (other parameters, e.g. the time range, kept) with these filters and sort; empty filters and the default sort are left out. */
export function sessionQueryString(base: string, filters: SessionFilters, sort: SessionSort): string {
  const q = new URLSearchParams(base);
  for (const k of Object.keys(PARAM) as (keyof SessionFilters)[]) {
    const v = filters[k].trim();
    if (v) q.set(PARAM[k], v);
    else q.delete(PARAM[k]);
  }
  const isDefault = sort.key === DEFAULT_SORT.key && sort.dir === DEFAULT_SORT.dir;
  if (isDefault) (q.delete("sort"), q.delete("dir"));
  else (q.set("sort", sort.key), q.set("dir", sort.dir));
  return q.toString();
}
