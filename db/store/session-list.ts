import { and, eq, exists, gte, isNotNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { SessionRow } from "../rows/session-summaries";
import { position } from "./sql";
import { sessionTables, type SessionTables } from "./session-tables";
import type { Store } from "./store";

// The sessions list on either engine: one keyset page of session_summaries rows, the filter menus, one summary.

export type { SessionRow };

type Summaries = SessionTables["sessionSummaries"];

/** The sortable columns: each an expression over session_summaries (text only for sessionId). */
export const SORTS = {
  lastAt: (s) => s.lastAt,
  firstAt: (s) => s.firstAt,
  turns: (s) => s.turns,
  agents: (s) => s.agents,
  inputTokens: (s) => s.inputTokens,
  cachedShare: (s) => sql`coalesce(${s.cachedShare}, -1)`,
  recomputed: (s) => sql`(${s.cold} + ${s.diverged} + ${s.evicted} + ${s.routedAway} + ${s.unknown})`,
  cold: (s) => s.cold,
  diverged: (s) => s.diverged,
  evicted: (s) => s.evicted,
  routedAway: (s) => s.routedAway,
  ttftP50: (s) => sql`coalesce(${s.ttftP50}, -1)`,
  toolWaitMs: (s) => s.toolWaitMs,
  duration: (s) => s.duration,
  sessionId: (s) => s.sessionId,
} as const satisfies Record<string, (s: Summaries) => SQL | Summaries[keyof Summaries & string]>;
export type SortKey = keyof typeof SORTS;

export type SessionFilter = {
  from: number;
  to: number;
  now: number;
  harness?: string | null;
  sessionType?: string | null;
  status?: "active" | "ended" | "error" | null;
  minTurns?: number | null;
  minHit?: number | null;
  maxHit?: number | null;
  hasSubagents?: boolean | null;
  workerId?: string | null;
  search?: string | null;
  /** Sessions with a request of this cluster (id) and/or this model. */
  clusterId?: number | null;
  model?: string | null;
};

export type SessionCursor = { v: number | string; id: string };

/** Sessions idle for longer than this (ms) count as ended. */
export const ACTIVE_MS = 5 * 60_000;

/**
 * Text compared and ordered byte by byte, as SQLite compares it: PostgreSQL's default collation orders by locale
 * (case and punctuation), which would page a list differently on the two engines.
 */
export function binary(s: Store, text: SQL | Summaries["sessionId"]): SQL {
  return s.engine === "pg" ? sql`${text} COLLATE "C"` : sql`${text}`;
}

function columns(s: Summaries) {
  return {
    sessionId: s.sessionId,
    harness: s.harness,
    sessionType: s.sessionType,
    firstAt: s.firstAt,
    lastAt: s.lastAt,
    turns: s.turns,
    agents: s.agents,
    subagents: s.subagents,
    inputTokens: s.inputTokens,
    cachedTokens: s.cachedTokens,
    outputTokens: s.outputTokens,
    cachedShare: s.cachedShare,
    cold: s.cold,
    diverged: s.diverged,
    evicted: s.evicted,
    routedAway: s.routedAway,
    unknown: s.unknown,
    ttftP50: s.ttftP50,
    toolCalls: s.toolCalls,
    toolWaitMs: s.toolWaitMs,
    errors: s.errors,
    duration: s.duration,
  };
}

function where(st: Store, f: SessionFilter): SQL | undefined {
  const { sessionSummaries: s, requests: r } = sessionTables(st);
  const active = f.now - ACTIVE_MS;
  return and(
    gte(s.lastAt, f.from),
    lt(s.firstAt, f.to),
    f.harness ? eq(s.harness, f.harness) : undefined,
    f.sessionType ? eq(s.sessionType, f.sessionType) : undefined,
    f.status === "error" ? sql`${s.errors} > 0` : undefined,
    f.status === "active" ? and(eq(s.errors, 0), gte(s.lastAt, active)) : undefined,
    f.status === "ended" ? and(eq(s.errors, 0), lt(s.lastAt, active)) : undefined,
    f.minTurns ? gte(s.turns, f.minTurns) : undefined,
    f.minHit != null ? gte(s.cachedShare, f.minHit) : undefined,
    f.maxHit != null ? lte(s.cachedShare, f.maxHit) : undefined,
    f.hasSubagents === true ? sql`${s.subagents} > 0` : undefined,
    f.hasSubagents === false ? eq(s.subagents, 0) : undefined,
    f.workerId
      ? exists(
          st.db
            .select({ one: sql`1` })
            .from(r)
            .where(and(eq(r.sessionId, s.sessionId), eq(r.workerId, f.workerId))),
        )
      : undefined,
    f.search ? sql`${position(st, sql`${s.sessionId}`, f.search)} > 0` : undefined,
    f.clusterId != null || f.model
      ? exists(
          st.db
            .select({ one: sql`1` })
            .from(st.t.requestReads)
            .where(
              and(
                eq(st.t.requestReads.sessionId, s.sessionId),
                f.clusterId != null ? eq(st.t.requestReads.clusterId, f.clusterId) : undefined,
                f.model ? eq(st.t.requestReads.model, f.model) : undefined,
              ),
            ),
        )
      : undefined,
  );
}

/** One page of session summaries matching the filter, ordered by a whitelisted column then id; limit + 1 rows. */
export async function sessionsPage(
  st: Store,
  f: SessionFilter,
  sort: SortKey,
  dir: "asc" | "desc",
  limit: number,
  cursor?: SessionCursor | null,
): Promise<(SessionRow & { sortValue: number | string })[]> {
  const { sessionSummaries: s } = sessionTables(st);
  const text = sort === "sessionId";
  const col = text ? binary(st, s.sessionId) : sql`${SORTS[sort](s)}`;
  const id = binary(st, s.sessionId);
  const op = sql.raw(dir === "desc" ? "<" : ">");
  const order = sql.raw(dir);
  const after = cursor
    ? sql`(${col} ${op} ${cursor.v} OR (${col} = ${cursor.v} AND ${id} ${op} ${cursor.id}))`
    : undefined;
  const sortValue = sql`${SORTS[sort](s)}`.mapWith((v: unknown) => (text ? String(v) : Number(v)));
  return st.db
    .select({ ...columns(s), sortValue })
    .from(s)
    .where(and(where(st, f), after))
    .orderBy(sql`${col} ${order}`, sql`${id} ${order}`)
    .limit(limit + 1);
}

/** Distinct harnesses and session types among summaries (for the filter menus), at most 50 each. */
export async function sessionFacets(st: Store): Promise<{ harnesses: string[]; sessionTypes: string[] }> {
  const { sessionSummaries: s } = sessionTables(st);
  const distinct = async (c: typeof s.harness | typeof s.sessionType) =>
    (
      await st.db
        .selectDistinct({ v: binary(st, sql`${c}`).mapWith(String) })
        .from(s)
        .where(isNotNull(c))
        .orderBy(sql`1`)
        .limit(50)
    ).map((r) => r.v);
  const [harnesses, sessionTypes] = await Promise.all([distinct(s.harness), distinct(s.sessionType)]);
  return { harnesses, sessionTypes };
}

/** The summary row of one session, or undefined. */
export async function sessionSummary(st: Store, sessionId: string): Promise<SessionRow | undefined> {
  const { sessionSummaries: s } = sessionTables(st);
  return (await st.db.select(columns(s)).from(s).where(eq(s.sessionId, sessionId)).limit(1))[0];
}
