import "server-only";
import { clusterId } from "../../db/ingest/clusters";
import { windowRequestStats, windowWorkers } from "../../db/store/previews";
import type { Store } from "../../db/store/store";
import { capacityCsv } from "../analysis/capacity/report";
import { requestActor } from "../auth/request";
import { satisfies } from "../auth/roles";
import { env } from "../env";
import { AppError, retryAfterOf } from "../errors";
import { errorResponse } from "../http";
import { estimatePreviewBytes, memoryRefusal, PREVIEW_COSTS } from "../preview/budget";
import { ASSUMED_BLOCK_SIZE } from "../preview/cluster-shape";
import { AFTER_MS, WARMUP_MS } from "../preview/load";
import { previewQueue } from "../preview/service";
import { ownerOf } from "../routers/previews";
import { serverStore } from "../runtime";
import type { CapacityResult, ReplayResult } from "./compute";
import { keptWindow, parseCapacityQuery, replayCapacities, type CapacityQuery } from "./request";

// GET /api/capacity (curves, answer, tier grid; JSON or CSV) and GET /api/capacity/replay (capacities replayed): read
// scope, checked query, retention and memory decided before the job is queued on a preview slot.

const MB = 1024 * 1024;
/** The exact pass gets at least this much of the preview's memory limit after the window (else it samples). */
const MIN_CURVE_BYTES = 32 * MB;

/** Bytes the window itself takes once read (the preview's per-request and per-block costs, warm-up included). */
async function windowBytes(
  s: Store,
  q: CapacityQuery,
): Promise<{ bytes: number; requests: number; inputTokens: number; blockSize: number | null }> {
  const size = await windowRequestStats(s, q.from - WARMUP_MS, q.to + AFTER_MS, clusterId(q.cluster));
  const blocks = Math.ceil(size.inputTokens / (size.blockSize ?? ASSUMED_BLOCK_SIZE));
  return {
    bytes:
      PREVIEW_COSTS.baseBytes + size.requests * PREVIEW_COSTS.requestBytes + blocks * PREVIEW_COSTS.windowBytesPerBlock,
    ...size,
  };
}

/** The query at `now` with its window cut to what retention keeps, and what was deleted. */
function checkedQuery(req: Request, now: number): { q: CapacityQuery; deleted: string[] } {
  const e = env();
  const q = parseCapacityQuery(new URL(req.url).searchParams, now);
  const kept = keptWindow(q.from, q.to, now, e.SWITCHYARD_RETENTION_DAYS, e.SWITCHYARD_RAW_RETENTION_HOURS);
  return { q: { ...q, from: kept.from }, deleted: kept.deleted };
}

/** The reader (401/403 otherwise). */
async function reader(s: Store, req: Request) {
  const actor = await requestActor(s, req, Date.now());
  if (!actor) throw new AppError("UNAUTHORIZED", "sign in, or send a read token (Authorization: Bearer <token>)");
  if (!satisfies(actor.role, "viewer")) throw new AppError("FORBIDDEN", "the capacity report needs the read scope");
  return actor;
}

/** GET /api/capacity. */
export async function capacityResponse(req: Request): Promise<Response> {
  try {
    const store = serverStore();
    const actor = await reader(store, req);
    const { q, deleted } = checkedQuery(req, Date.now());
    const limitMb = env().SWITCHYARD_PREVIEW_MEMORY_MB;
    const w = await windowBytes(store, q);
    const refusal = memoryRefusal(w.bytes + MIN_CURVE_BYTES, limitMb);
    if (refusal) throw new AppError("UNPROCESSABLE", refusal.replace("this preview", "this window's curves"));
    const result = (await previewQueue(store).task(
      {
        task: "capacity",
        cluster: q.cluster,
        model: q.model,
        role: q.role,
        from: q.from,
        to: q.to,
        capacities: q.capacities,
        target: q.target,
        bytesPerToken: q.bytesPerToken,
        tierGbps: q.tierGbps,
        memoryBytes: limitMb * MB - w.bytes,
      },
      ownerOf(actor),
      req.signal,
    )) as CapacityResult;
    if (q.format === "csv")
      return new Response(capacityCsv(result.report), {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": `attachment; filename="capacity-${q.cluster}-${q.from}-${q.to}.csv"`,
        },
      });
    const { report, ...rest } = result;
    return Response.json({ ...rest, deleted, ...report });
  } catch (err) {
    return failure(err);
  }
}

/** GET /api/capacity/replay. */
export async function capacityReplayResponse(req: Request): Promise<Response> {
  try {
    const store = serverStore();
    const actor = await reader(store, req);
    const { q, deleted } = checkedQuery(req, Date.now());
    if (q.format !== "json") throw new AppError("BAD_REQUEST", "format: replayed capacities come as JSON only");
    const capacities = replayCapacities(q);
    const w = await windowBytes(store, q);
    if (w.requests === 0)
      throw new AppError("BAD_REQUEST", "no recorded requests in this window: nothing to replay", { empty: true });
    const workers = Math.max(1, (await windowWorkers(store, q.from, q.to, q.cluster)).length);
    const largest = capacities[capacities.length - 1]!;
    const blockSize = w.blockSize ?? ASSUMED_BLOCK_SIZE;
    // One replay at a time, so one run's pools (the estimate counts two).
    const estimate = estimatePreviewBytes(
      { workers, kvBlocks: largest, blockSize, peak: [workers, 0] },
      { requests: w.requests, inputTokens: w.inputTokens },
      blockSize,
    );
    const refusal = memoryRefusal(estimate, env().SWITCHYARD_PREVIEW_MEMORY_MB);
    if (refusal)
      throw new AppError("UNPROCESSABLE", refusal.replace("this preview", `a replay at ${largest} blocks per worker`));
    const result = (await previewQueue(store).task(
      { task: "capacity-replay", cluster: q.cluster, model: q.model, role: q.role, from: q.from, to: q.to, capacities },
      ownerOf(actor),
      req.signal,
    )) as ReplayResult;
    return Response.json({ ...result, deleted });
  } catch (err) {
    return failure(err);
  }
}

/** Field errors and flags beside the message; Retry-After on a full queue; 5xx masked. */
function failure(err: unknown): Response {
  if (err instanceof AppError && err.code === "TOO_MANY_REQUESTS")
    return errorResponse(err, { "Retry-After": String(retryAfterOf(err)) });
  if (err instanceof AppError && err.details && typeof err.details === "object" && err.status < 500)
    return Response.json({ error: err.message, ...(err.details as object) }, { status: err.status });
  return errorResponse(
    err,
    err instanceof AppError && err.code === "UNAUTHORIZED" ? { "WWW-Authenticate": "Bearer" } : undefined,
  );
}
