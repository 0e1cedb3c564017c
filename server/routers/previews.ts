import "server-only";
import { z } from "zod";
import { countWindowRequests, latestPreview } from "../../db/store/previews";
import type { Store } from "../../db/store/store";
import { policyContentHash } from "../control/content-hash";
import { validatePolicy } from "../control/policies";
import type { PreviewResult } from "../preview/types";
import { AppError } from "../errors";
import { preparePreview, previewInput, type PreparedPreview } from "../preview/request";
import { previewQueue } from "../preview/service";
import { operatorProcedure, router, storeOf, type InnerContext } from "../trpc/init";

const jobId = z.object({ id: z.string().min(1).max(64) });

/** Check a preview request and its window (field errors, window limit, empty window) before it is queued. */
export async function checkedPreview(s: Store, raw: unknown, now: number): Promise<PreparedPreview> {
  const p = preparePreview(raw, now);
  if ((await countWindowRequests(s, p.from, p.to)) === 0)
    throw new AppError("BAD_REQUEST", "no recorded traffic in this window: nothing to replay", {
      errors: [{ path: "window", message: "holds no recorded requests" }],
      empty: true,
    });
  return p;
}

/** The queue of the context's store (its SQLite connection beside it, which PostgreSQL's has none of). */
const queueOf = (ctx: Pick<InnerContext, "db" | "store">) => {
  const s = storeOf(ctx);
  return previewQueue(s, s.engine === "sqlite" ? ctx.db : null);
};

export const previewsRouter = router({
  /** Queue a preview of a candidate document (or answer from a stored result): the job with its place and progress. */
  start: operatorProcedure
    .input(previewInput)
    .mutation(async ({ ctx, input }) => queueOf(ctx).submit(await checkedPreview(storeOf(ctx), input, ctx.now()))),

  /** A job's state: queued (with its place), running (progress 0–1), done (with the result), failed or cancelled. */
  status: operatorProcedure.input(jobId).query(({ ctx, input }) => {
    const job = queueOf(ctx).status(input.id);
    if (!job) throw new AppError("NOT_FOUND", `no preview job ${input.id}`);
    return job;
  }),

  /** The newest stored result for this document (any window), so the review screen shows it at once; null: none. */
  stored: operatorProcedure
    .input(z.object({ kind: previewInput.shape.kind, document: z.unknown() }))
    .query(async ({ ctx, input }) => {
      const checked = validatePolicy(input.kind, input.document);
      if (!checked.ok) return null;
      const row = await latestPreview(storeOf(ctx), input.kind, policyContentHash(input.kind, checked.document));
      return row ? (JSON.parse(row.result) as PreviewResult) : null;
    }),

  /** Cancel a queued or running job. */
  cancel: operatorProcedure.input(jobId).mutation(({ ctx, input }) => ({ cancelled: queueOf(ctx).cancel(input.id) })),
});
