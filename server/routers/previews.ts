import "server-only";
import { z } from "zod";
import type { Db } from "../../db/client";
import { countWindowRequests, latestPreview } from "../../db/queries/previews";
import { policyContentHash } from "../control/content-hash";
import { validatePolicy } from "../control/policies";
import type { PreviewResult } from "../preview/types";
import { AppError } from "../errors";
import { preparePreview, previewInput, type PreparedPreview } from "../preview/request";
import { previewQueue } from "../preview/service";
import { operatorProcedure, router } from "../trpc/init";

const jobId = z.object({ id: z.string().min(1).max(64) });

/** Check a preview request and its window (field errors, window limit, empty window) before it is queued. */
export function checkedPreview(db: Db, raw: unknown, now: number): PreparedPreview {
  const p = preparePreview(raw, now);
  if (countWindowRequests(db, p.from, p.to) === 0)
    throw new AppError("BAD_REQUEST", "no recorded traffic in this window: nothing to replay", {
      errors: [{ path: "window", message: "holds no recorded requests" }],
      empty: true,
    });
  return p;
}

export const previewsRouter = router({
  /** Queue a preview of a candidate document (or answer from a stored result): the job with its place and progress. */
  start: operatorProcedure
    .input(previewInput)
    .mutation(({ ctx, input }) => previewQueue(ctx.db).submit(checkedPreview(ctx.db, input, ctx.now()))),

  /** A job's state: queued (with its place), running (progress 0–1), done (with the result), failed or cancelled. */
  status: operatorProcedure.input(jobId).query(({ ctx, input }) => {
    const job = previewQueue(ctx.db).status(input.id);
    if (!job) throw new AppError("NOT_FOUND", `no preview job ${input.id}`);
    return job;
  }),

  /** The newest stored result for this document (any window), so the review screen shows it at once; null: none. */
  stored: operatorProcedure
    .input(z.object({ kind: previewInput.shape.kind, document: z.unknown() }))
    .query(({ ctx, input }) => {
      const checked = validatePolicy(input.kind, input.document);
      if (!checked.ok) return null;
      const row = latestPreview(ctx.db, input.kind, policyContentHash(input.kind, checked.document));
      return row ? (JSON.parse(row.result) as PreviewResult) : null;
    }),

  /** Cancel a queued or running job. */
  cancel: operatorProcedure
    .input(jobId)
    .mutation(({ ctx, input }) => ({ cancelled: previewQueue(ctx.db).cancel(input.id) })),
});
