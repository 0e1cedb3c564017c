import { index, integer, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Policy preview results, one per (kind, content hash, window): re-opening a preview reads it instead of replaying.
 * `result` is the whole answer as JSON; the candidate's headline figures are columns for the impact panel.
 */
export const previewResults = sqliteTable(
  "preview_results",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    kind: text("kind").notNull(),
    contentHash: text("content_hash").notNull(),
    windowFrom: integer("window_from").notNull(),
    windowTo: integer("window_to").notNull(),
    /** Hash of the cluster override (empty: the observed workers). */
    clusterKey: text("cluster_key").notNull().default(""),
    computedAt: integer("computed_at").notNull(),
    hitRate: real("hit_rate"),
    ttftP50Ms: real("ttft_p50_ms"),
    ttftP95Ms: real("ttft_p95_ms"),
    result: text("result").notNull(),
  },
  (t) => [
    index("preview_results_content").on(t.kind, t.contentHash, t.computedAt),
    index("preview_results_window").on(t.kind, t.contentHash, t.windowFrom, t.windowTo, t.clusterKey),
    index("preview_results_computed").on(t.computedAt),
  ],
);
