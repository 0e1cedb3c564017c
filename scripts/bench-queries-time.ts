// bench:queries' timing: p50/p95 of each page procedure through createCaller, calls alternating between the engines.
import type { Engine } from "./bench-ingest-engines";

/** Timed calls of each (BENCH_CALLS, 20 to 1,000; default 20): a p95 of twenty is their second slowest. */
export const CALLS = callsOf(process.env.BENCH_CALLS);

function callsOf(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 20 || n > 1_000)
    throw new Error("BENCH_CALLS takes a whole number of calls from 20 to 1,000");
  return n;
}
/**
 * Untimed calls of each before the timed ones. PostgreSQL prepares a statement on each pooled connection the first
 * time it runs there and plans it afresh for its first five runs on each (plan_cache_mode auto): with a pool of four,
 * the first calls of a chart took 3–5 ms against 1.5 ms after, and one warm-up call left them among the timed ones.
 */
export const WARMUP = 10;

export function quantile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export type Caller = Awaited<ReturnType<(typeof import("../server/trpc/root"))["createCaller"]>>;

/**
 * The procedures timed, by name (the workers, routing and overview pages: all read through the store); with a scope
 * (a fleet's data), the same pages scoped to one cluster and to one model as well.
 */
function procedures(caller: Caller, one: string, scope?: { cluster: string; model: string }) {
  const range = { preset: "24h" } as const;
  const hour = { preset: "1h" } as const;
  const scoped = scope
    ? ([
        ["overview.summary (cluster)", () => caller.overview.summary({ ...range, cluster: scope.cluster })],
        ["overview.summary (model)", () => caller.overview.summary({ ...range, model: scope.model })],
        ["overview.trends (cluster)", () => caller.overview.trends({ ...range, cluster: scope.cluster })],
        ["overview.trends 1h", () => caller.overview.trends(hour)],
        ["overview.trends 1h (cluster)", () => caller.overview.trends({ ...hour, cluster: scope.cluster })],
        ["workers.list (cluster)", () => caller.workers.list({ ...range, cluster: scope.cluster })],
        ["workers.series (cluster)", () => caller.workers.series({ range, cluster: scope.cluster })],
        ["routing.list (cluster)", () => caller.routing.list({ range, cluster: scope.cluster })],
        ["routing.list (model)", () => caller.routing.list({ range, model: scope.model })],
        ["routing.series (cluster)", () => caller.routing.series({ range, cluster: scope.cluster })],
        ["sessions.list (cluster)", () => caller.sessions.list({ range, cluster: scope.cluster })],
        ["overview.scopes", () => caller.overview.scopes()],
      ] as const)
    : [];
  return [
    ["workers.list", () => caller.workers.list(range)],
    ["workers.series", () => caller.workers.series({ range })],
    ["workers.byId", () => caller.workers.byId({ id: one, range })],
    ["workers.series (one worker)", () => caller.workers.series({ range, workerId: one })],
    ["workers.blocksByClass", () => caller.workers.blocksByClass({ id: one, range })],
    ["routing.list", () => caller.routing.list({ range })],
    ["routing.series", () => caller.routing.series({ range })],
    ["overview.summary", () => caller.overview.summary(range)],
    ["overview.trends", () => caller.overview.trends(range)],
    ["overview.fleet", () => caller.overview.fleet(range)],
    ["overview.fleetFindings", () => caller.overview.fleetFindings(range)],
    ["workers.series 1h", () => caller.workers.series({ range: hour })],
    ["workers.series 1h (one worker)", () => caller.workers.series({ range: hour, workerId: one })],
    ...scoped,
  ] as const;
}

const pq = (ms: number[]) => `p50 ${quantile(ms, 0.5).toFixed(1)} ms p95 ${quantile(ms, 0.95).toFixed(1)} ms`;

/** Each procedure on each engine, calls alternating between the engines so load from elsewhere hits both alike. */
export async function timeProcedures(
  callers: { engine: Engine; caller: Caller }[],
  one: string,
  scope?: { cluster: string; model: string },
) {
  const lists = callers.map((c) => procedures(c.caller, one, scope));
  for (let i = 0; i < lists[0]!.length; i++) {
    const [name] = lists[0]![i]!;
    const runs = callers.map((c, k) => ({
      engine: c.engine,
      call: lists[k]![i]![1] as () => Promise<unknown>,
      ms: [] as number[],
    }));
    for (let n = 0; n < WARMUP; n++) for (const r of runs) await r.call();
    for (let n = 0; n < CALLS; n++)
      for (const r of runs) {
        const t = performance.now();
        await r.call();
        r.ms.push(performance.now() - t);
      }
    for (const r of runs) r.ms.sort((a, b) => a - b);
    const cols = runs.map((r) => (callers.length > 1 ? `${r.engine} ${pq(r.ms)}` : pq(r.ms)));
    const sq = runs.find((r) => r.engine === "sqlite");
    const pgRun = runs.find((r) => r.engine === "postgres");
    if (sq && pgRun)
      cols.push(`(postgres/sqlite p95 ${(quantile(pgRun.ms, 0.95) / quantile(sq.ms, 0.95)).toFixed(2)}x)`);
    console.log(`${name}: ${cols.join("; ")}`);
  }
}
