import "server-only";
import { z } from "zod";
import { getSource, listSources, listSourceStatus, removeSource, upsertSource } from "../../db/queries/source-registry";
import { AppError } from "../errors";
import { sourceInput } from "../sources/config";
import { reloadSources } from "../sources/reload";
import { joinSources } from "../sources/summary";
import { operatorProcedure, router, viewerProcedure } from "../trpc/init";
import { databaseSize, oldestKept } from "../../db/queries/retention";
import { storageSummary } from "../analysis/storage";
import { env } from "../env";
import { SUMMARY_RETENTION_DAYS } from "../jobs/retention";

const id = z.string().trim().min(1).max(64);

export const sourcesRouter = router({
  /** Every configured source with its status, then implicit ones (OTLP, trace uploads) that have reported. */
  list: viewerProcedure.query(({ ctx }) => joinSources(listSources(ctx.db), listSourceStatus(ctx.db))),

  /** The database's size on disk (file + WAL) and, per kind of data, the oldest row kept and how long it is kept. */
  storage: viewerProcedure.query(({ ctx }) => {
    const e = env();
    const retention = {
      rawHours: e.SWITCHYARD_RAW_RETENTION_HOURS,
      days: e.SWITCHYARD_RETENTION_DAYS,
      summaryDays: SUMMARY_RETENTION_DAYS,
    };
    return storageSummary(databaseSize(ctx.db), oldestKept(ctx.db), retention);
  }),

  /** Create a source, or replace one's name, config and enabled flag (create: true refuses an existing id). */
  upsert: operatorProcedure
    .input(z.object({ source: sourceInput, create: z.boolean().default(false) }))
    .mutation(({ ctx, input }) => {
      const existing = getSource(ctx.db, input.source.id);
      if (input.create && existing)
        throw new AppError("CONFLICT", `a source with id ${input.source.id} already exists`);
      if (existing && existing.kind !== input.source.kind)
        throw new AppError(
          "BAD_REQUEST",
          `source ${input.source.id} is a ${existing.kind} source; remove it to change its kind`,
        );
      upsertSource(ctx.db, { ...input.source, origin: existing?.origin ?? "ui" }, ctx.now());
      reloadSources();
      return { id: input.source.id };
    }),

  /** Stop and remove a configured source and its status. */
  remove: operatorProcedure.input(z.object({ id })).mutation(({ ctx, input }) => {
    if (!removeSource(ctx.db, input.id)) throw new AppError("NOT_FOUND", `no source ${input.id}`);
    reloadSources();
    return { id: input.id };
  }),
});
