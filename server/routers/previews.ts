import "server-only";
import { clusterName, DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { clusterId } from "../../db/ingest/clusters";
import { z } from "zod";
import type { WindowWorkerRow } from "../../db/rows/previews";
import { listVersions, MAX_PAGE } from "../../db/store/control";
import { windowWorkers } from "../../db/store/previews";
import { countWindowRequests, latestPreview, windowRequestStats } from "../../db/store/previews";
import type { Store } from "../../db/store/store";
import type { Actor } from "../auth/roles";
import { policyContentHash } from "../control/content-hash";
import { defaultPolicies, validatePolicy } from "../../lib/policies/policies";
import type { PreviewResult } from "../preview/types";
import { env } from "../env";
import { AppError } from "../errors";
import {
  estimatePreviewBytes,
  gpuBudgetOf,
  memoryRefusal,
  overrideProblems,
  replayedCluster,
  type RecordedCluster,
} from "../preview/budget";
import { AFTER_MS, WARMUP_MS } from "../preview/load";
import { preparePreview, previewInput, type PreparedPreview } from "../preview/request";
import { previewQueue } from "../preview/service";
import { MAX_WORKERS } from "../sim/cluster";
import { operatorProcedure, router, type InnerContext } from "../trpc/init";

const jobId = z.object({ id: z.string().min(1).max(64) });

/**
 * Check a preview request before it is queued: field errors, the window limit and the empty window (400); then, before
 * anything is read or allocated, the cluster override's bounds relative to the recorded cluster and the estimated
 * memory of the replay against SWITCHYARD_PREVIEW_MEMORY_MB (422 naming the estimate, the limit and any bound).
 */
export async function checkedPreview(
  s: Store,
  raw: unknown,
  now: number,
  limitMb: number = env().SWITCHYARD_PREVIEW_MEMORY_MB,
): Promise<PreparedPreview> {
  const p = preparePreview(raw, now);
  const id = clusterId(p.scope);
  if ((await countWindowRequests(s, p.from, p.to, id)) === 0)
    throw new AppError(
      "BAD_REQUEST",
      `no recorded traffic${p.scope === DEFAULT_CLUSTER ? "" : ` of cluster ${p.scope}`} in this window: nothing to replay`,
      { errors: [{ path: "window", message: "holds no recorded requests" }], empty: true },
    );
  const size = await windowRequestStats(s, p.from - WARMUP_MS, p.to + AFTER_MS, id);
  const recorded = recordedCluster(await windowWorkers(s, p.from, p.to, p.scope), size.blockSize);
  const problems = p.cluster ? overrideProblems(p.cluster, recorded) : [];
  const cluster = replayedCluster(p.cluster, recorded, await autoscalingBudgets(s, p));
  const estimate = estimatePreviewBytes(cluster, size, recorded.blockSize);
  const refusal = memoryRefusal(estimate, limitMb);
  const details = { errors: problems, estimate_mb: Math.ceil(estimate / 2 ** 20), limit_mb: limitMb };
  if (refusal) throw new AppError("UNPROCESSABLE", refusal, details);
  if (problems.length)
    throw new AppError(
      "UNPROCESSABLE",
      `the cluster override is out of bounds: ${problems.map((x) => `${x.path} ${x.message}`).join("; ")}`,
      details,
    );
  return p;
}

/** Stored autoscaling versions read for their budgets at most; with more, the simulator's ceiling is assumed. */
const MAX_BUDGET_VERSIONS = 2_000;

/**
 * The largest max_gpu_budget the baseline's autoscaling may have — any stored version may be the one in force in the
 * window, the defaults when its requests name none, or the start configuration given — and the candidate's.
 */
async function autoscalingBudgets(s: Store, p: PreparedPreview): Promise<[number, number]> {
  let base = Math.max(gpuBudgetOf(defaultPolicies().autoscaling), gpuBudgetOf(p.baseline.autoscaling));
  let before: number | undefined;
  for (let read = 0; base < MAX_WORKERS;) {
    // The versions of the cluster replayed.
    const page = await listVersions(s, p.scope, "autoscaling", MAX_PAGE, before);
    for (const v of page) base = Math.max(base, gpuBudgetOf(v.document));
    read += page.length;
    if (page.length < MAX_PAGE) break;
    if (read >= MAX_BUDGET_VERSIONS) base = MAX_WORKERS;
    before = page.at(-1)!.version;
  }
  return [base, p.kind === "autoscaling" ? gpuBudgetOf(p.document) : base];
}

/** The key a caller's previews are counted under (at most MAX_PER_OWNER at once). */
export function ownerOf(actor: Actor | null): string {
  return actor ? `${actor.kind}:${actor.id}` : "";
}

/**
 * The recorded cluster of a window's workers: how many, the largest KV size, and the block size the requests' chains
 * were recorded at (else the workers' most common one).
 */
function recordedCluster(workers: WindowWorkerRow[], chainBlockSize: number | null): RecordedCluster {
  const sizes = new Map<number, number>();
  for (const w of workers) if (w.blockSize !== null) sizes.set(w.blockSize, (sizes.get(w.blockSize) ?? 0) + 1);
  const kv = workers.map((w) => w.kvTotalBlocks).filter((v): v is number => v !== null);
  return {
    workers: workers.length,
    maxKvBlocks: kv.length ? Math.max(...kv) : null,
    blockSize: chainBlockSize ?? [...sizes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null,
  };
}

/** The queue of the context's store (its SQLite connection beside it, which PostgreSQL's has none of). */
const queueOf = (ctx: Pick<InnerContext, "store">) => previewQueue(ctx.store);

export const previewsRouter = router({
  /** Queue a preview of a candidate document (or answer from a stored result): the job with its place and progress. */
  start: operatorProcedure
    .input(previewInput)
    .mutation(async ({ ctx, input }) =>
      queueOf(ctx).submit(await checkedPreview(ctx.store, input, ctx.now()), ownerOf(ctx.actor ?? null)),
    ),

  /** A job's state: queued (with its place), running (progress 0–1), done (with the result), failed or cancelled. */
  status: operatorProcedure.input(jobId).query(({ ctx, input }) => {
    const job = queueOf(ctx).status(input.id);
    if (!job) throw new AppError("NOT_FOUND", `no preview job ${input.id}`);
    return job;
  }),

  /**
   * The newest stored result for this document (any window), so the review screen shows it at once; null: none, or
   * the newest is another cluster's.
   */
  stored: operatorProcedure
    .input(z.object({ kind: previewInput.shape.kind, document: z.unknown(), cluster: clusterName.optional() }))
    .query(async ({ ctx, input }) => {
      const checked = validatePolicy(input.kind, input.document);
      if (!checked.ok) return null;
      const row = await latestPreview(ctx.store, input.kind, policyContentHash(input.kind, checked.document));
      const result = row ? (JSON.parse(row.result) as PreviewResult) : null;
      return result && (result.scope ?? DEFAULT_CLUSTER) === (input.cluster ?? DEFAULT_CLUSTER) ? result : null;
    }),

  /** Cancel a queued or running job. */
  cancel: operatorProcedure.input(jobId).mutation(({ ctx, input }) => ({ cancelled: queueOf(ctx).cancel(input.id) })),
});
