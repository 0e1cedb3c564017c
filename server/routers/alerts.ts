import "server-only";
import { randomBytes } from "node:crypto";
import { z } from "zod";
import {
  alertHistory,
  alertReceivers,
  alertStates,
  removeReceiver,
  upsertReceiver,
  MAX_HISTORY,
} from "../../db/store/alerts";
import { MIN_SECRET, receiverInput } from "../../lib/alerts/receivers";
import { SECRET_MARKER } from "../../lib/secret-fields";
import { sealConfig } from "../auth/stored-secrets";
import { leaderOutbox } from "../alerts/loop";
import { ALERTS_KIND, rulesInForce } from "../alerts/job";
import { getVersion, listVersions } from "../../db/store/control";
import { DEFAULT_CLUSTER } from "../../lib/cluster-name";
import { publishAlertRules } from "../alerts/publish";
import { AppError } from "../errors";
import { assertOutboundConfig } from "../outbound/assert";
import { operatorProcedure, router, viewerProcedure } from "../trpc/init";

// The Alerts page and the receivers on the Sources page: what fires now, the history, the rules in force, and where
// alerts go with each receiver's delivery state (kept by the leader process; another process says so).

const ms = z.number().int().min(0).max(8.64e15);

export const alertsRouter = router({
  overview: viewerProcedure
    .input(z.strictObject({ from: ms, to: ms, rule: z.string().max(64).nullable().default(null) }))
    .query(async ({ ctx, input }) => {
      const s = ctx.store;
      if (input.from >= input.to) throw new AppError("BAD_REQUEST", "the range must end after it starts");
      const [states, history, { rules, version }, receivers] = await Promise.all([
        alertStates(s),
        alertHistory(s, input.from, input.to, MAX_HISTORY, input.rule),
        rulesInForce(s),
        alertReceivers(s),
      ]);
      const outbox = leaderOutbox();
      return {
        firing: states.filter((a) => a.state === "firing"),
        pending: states.filter((a) => a.state === "pending"),
        history,
        historyLimited: history.length >= MAX_HISTORY,
        rules: { version, rules: rules.rules },
        receivers: receivers.map((r) => ({
          id: r.id,
          name: r.name,
          kind: r.kind,
          url: r.url,
          enabled: r.enabled,
          secret: r.secret ? SECRET_MARKER : null,
          delivery: outbox ? outbox.state(r.id) : null,
        })),
        leader: Boolean(outbox),
      };
    }),

  /** Add or change a receiver; the webhook secret is sealed, a URL the outbound policy refuses is refused (422). */
  upsertReceiver: operatorProcedure
    .input(z.strictObject({ receiver: receiverInput }))
    .mutation(async ({ ctx, input }) => {
      const s = ctx.store;
      const r = input.receiver;
      assertOutboundConfig({ url: r.url });
      const existing = r.id ? (await alertReceivers(s)).find((x) => x.id === r.id) : undefined;
      if (r.id && !existing) throw new AppError("NOT_FOUND", `no receiver ${r.id}`);
      let secret: string | null = null;
      if (r.kind === "webhook") {
        if (r.secret !== SECRET_MARKER && r.secret!.length < MIN_SECRET)
          throw new AppError("BAD_REQUEST", `receiver.secret: must be at least ${MIN_SECRET} characters`, {
            errors: [{ path: "receiver.secret", message: `must be at least ${MIN_SECRET} characters` }],
          });
        const sealed = sealConfig(
          { url: r.url, secret: r.secret },
          existing ? { url: existing.url, secret: existing.secret } : null,
          ["secret"],
        );
        secret = sealed.secret as string;
      }
      const id = r.id ?? `r-${randomBytes(5).toString("hex")}`;
      await upsertReceiver(s, { id, name: r.name, kind: r.kind, url: r.url, secret, enabled: r.enabled }, ctx.now());
      return { id };
    }),

  /**
   * Publish the rules as the next version on top of `baseVersion` (null for the first): refused field by field, a
   * scope naming nothing that reported refused, a stale base a CONFLICT naming the newer version.
   */
  publishRules: operatorProcedure
    .input(
      z.strictObject({
        document: z.unknown(),
        baseVersion: z.number().int().min(1).nullable(),
        comment: z.string().max(500).default(""),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const out = await publishAlertRules(ctx.store, {
        document: input.document,
        baseVersion: input.baseVersion,
        author: ctx.actor?.name ?? "system",
        comment: input.comment,
        now: ctx.now(),
      });
      if (!out.ok)
        throw new AppError(
          "CONFLICT",
          `version ${out.latest} was published since you started: review it and try again`,
          {
            latest: out.latest,
            diff: out.diff,
          },
        );
      return out;
    }),

  /** The rules in force and their version (null: the shipped defaults), for the rules form on its own. */
  rules: viewerProcedure.query(async ({ ctx }) => {
    const { rules, version } = await rulesInForce(ctx.store);
    return { version, rules: rules.rules };
  }),

  /** The published versions of the rules, newest first (the last 50). */
  versions: viewerProcedure.query(async ({ ctx }) =>
    (await listVersions(ctx.store, DEFAULT_CLUSTER, ALERTS_KIND, 50)).map((v) => ({
      version: v.version,
      author: v.author,
      comment: v.comment,
      createdAt: v.createdAt,
      basedOn: v.basedOn,
    })),
  ),

  /** Publish version `to`'s rules again as the next version on top of `baseVersion` (audited as a rollback). */
  rollbackRules: operatorProcedure
    .input(
      z.strictObject({
        to: z.number().int().min(1),
        baseVersion: z.number().int().min(1),
        comment: z.string().max(500).default(""),
      }),
    )
    .mutation(async ({ ctx, input }) => {
      const target = await getVersion(ctx.store, DEFAULT_CLUSTER, ALERTS_KIND, input.to);
      if (!target) throw new AppError("NOT_FOUND", `alert rules version ${input.to} does not exist`);
      const out = await publishAlertRules(ctx.store, {
        document: target.document,
        baseVersion: input.baseVersion,
        author: ctx.actor?.name ?? "system",
        comment: input.comment || `rules of v${input.to}`,
        now: ctx.now(),
        action: "rollback",
      });
      if (!out.ok)
        throw new AppError(
          "CONFLICT",
          `version ${out.latest} was published since you started: review it and try again`,
          {
            latest: out.latest,
            diff: out.diff,
          },
        );
      return out;
    }),

  removeReceiver: operatorProcedure
    .input(z.strictObject({ id: z.string().min(1).max(64) }))
    .mutation(async ({ ctx, input }) => {
      if (!(await removeReceiver(ctx.store, input.id))) throw new AppError("NOT_FOUND", `no receiver ${input.id}`);
      leaderOutbox()?.forget(input.id);
      return { removed: true };
    }),
});
