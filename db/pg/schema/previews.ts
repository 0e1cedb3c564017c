import { doublePrecision, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { ms } from "./columns";

/** Kept preview results on PostgreSQL; mirrors db/sqlite/schema/previews.ts (one row per computed preview). */
export const previewResults = pgTable(
  "preview_results",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    kind: text("kind").notNull(),
    contentHash: text("content_hash").notNull(),
    windowFrom: ms("window_from").notNull(),
    windowTo: ms("window_to").notNull(),
    /** Hash of the cluster override (empty: the observed workers). */
    clusterKey: text("cluster_key").notNull().default(""),
    computedAt: ms("computed_at").notNull(),
    hitRate: doublePrecision("hit_rate"),
    ttftP50Ms: doublePrecision("ttft_p50_ms"),
    ttftP95Ms: doublePrecision("ttft_p95_ms"),
    result: text("result").notNull(),
  },
  (t) => [
    index("preview_results_content").on(t.kind, t.contentHash, t.computedAt),
    index("preview_results_window").on(t.kind, t.contentHash, t.windowFrom, t.windowTo, t.clusterKey),
    index("preview_results_computed").on(t.computedAt),
  ],
);
