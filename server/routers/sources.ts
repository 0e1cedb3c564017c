import "server-only";
import { z } from "zod";
import { getSource, listSources, listSourceStatus, removeSource, upsertSource } from "../../db/store/sources";
import { databaseSize, oldestKept } from "../../db/store/sources-storage";
import { SOURCE_SECRET_FIELDS } from "../../lib/secret-fields";
import { sealConfig } from "../auth/stored-secrets";
import { AppError } from "../errors";
import { inspectConfinedFolder } from "../files/confined-path";
import { importFolder, unprocessableIfRefused } from "../files/folders";
import { assertOutboundConfig } from "../outbound/assert";
import { sourceInput } from "../../lib/sources/config";
import { confinedSocket, ipcConfinement } from "../sources/zmq/endpoint";
import { reloadSources } from "../sources/reload";
import { joinSources } from "../sources/summary";
import { operatorProcedure, router, viewerProcedure } from "../trpc/init";
import { storageSummary } from "../analysis/storage";
import { env } from "../env";
import { SUMMARY_RETENTION_DAYS } from "../jobs/retention";
import { processMemory } from "../observability/thread-memory";
import { PROCESS_BUDGET_MB } from "../memory-budget";

const id = z.string().trim().min(1).max(64);

export const sourcesRouter = router({
  /** Every configured source with its status, then implicit ones (OTLP, trace uploads) that have reported. */
  list: viewerProcedure.query(async ({ ctx }) => {
    const s = ctx.store;
    return joinSources(await listSources(s), await listSourceStatus(s));
  }),

  /**
   * The database's size (SQLite: file + WAL; PostgreSQL: the database), per kind of data the oldest row kept, and the
   * memory of the dashboard process that answers: its RSS against its budget and each thread's heap against its limit.
   */
  storage: viewerProcedure.query(async ({ ctx }) => {
    const e = env();
    const retention = {
      rawHours: e.SWITCHYARD_RAW_RETENTION_HOURS,
      days: e.SWITCHYARD_RETENTION_DAYS,
      summaryDays: SUMMARY_RETENTION_DAYS,
    };
    const s = ctx.store;
    const size = await databaseSize(s, s.sqlite?.$client.name ?? null);
    const memory = processMemory();
    return {
      ...storageSummary(size, await oldestKept(s), retention),
      memory: {
        rssBytes: memory.rss,
        budgetBytes: PROCESS_BUDGET_MB.dashboard * 1024 * 1024,
        threads: memory.threads.map((t) => ({
          thread: t.thread,
          heapUsedBytes: t.heapUsed,
          heapLimitBytes: t.heapLimit,
        })),
      },
    };
  }),

  /**
   * Create a source, or replace one's name, config and enabled flag (create: true refuses an existing id); its bearer
   * token is sealed, and one sent back as the marker is kept only for the same scheme, host and port. A trace-dir's
   * path is a folder name inside SWITCHYARD_IMPORT_DIR (422 otherwise).
   */
  upsert: operatorProcedure
    .input(z.object({ source: sourceInput, create: z.boolean().default(false) }))
    .mutation(async ({ ctx, input }) => {
      assertOutboundConfig(input.source.config);
      if (input.source.kind === "trace-dir")
        await unprocessableIfRefused(inspectConfinedFolder(importFolder(), input.source.config.path));
      if (input.source.kind === "zmq-kv")
        for (const [field, endpoint] of [
          ["config.endpoint", input.source.config.endpoint],
          ["config.replay_endpoint", input.source.config.replay_endpoint],
        ] as const)
          if (endpoint?.startsWith("ipc://"))
            await unprocessableIfRefused(confinedSocket(ipcConfinement(field), endpoint.slice("ipc://".length)));
      const s = ctx.store;
      const existing = await getSource(s, input.source.id);
      if (input.create && existing)
        throw new AppError("CONFLICT", `a source with id ${input.source.id} already exists`);
      if (existing && existing.kind !== input.source.kind)
        throw new AppError(
          "BAD_REQUEST",
          `source ${input.source.id} is a ${existing.kind} source; remove it to change its kind`,
        );
      const config = sealConfig(input.source.config, existing?.config ?? null, SOURCE_SECRET_FIELDS);
      await upsertSource(s, { ...input.source, config, origin: existing?.origin ?? "ui" }, ctx.now());
      reloadSources();
      return { id: input.source.id };
    }),

  /** Stop and remove a configured source and its status. */
  remove: operatorProcedure.input(z.object({ id })).mutation(async ({ ctx, input }) => {
    if (!(await removeSource(ctx.store, input.id))) throw new AppError("NOT_FOUND", `no source ${input.id}`);
    reloadSources();
    return { id: input.id };
  }),
});
