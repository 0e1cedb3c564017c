CREATE TABLE "kv_tiers_1m" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"tier" text NOT NULL,
	"stored_blocks" bigint NOT NULL,
	"removed_blocks" bigint NOT NULL,
	"offloaded_blocks" bigint NOT NULL,
	"onboarded_blocks" bigint NOT NULL,
	"blocks" bigint NOT NULL,
	CONSTRAINT "kv_tiers_1m_worker_id_minute_tier_pk" PRIMARY KEY("worker_id","minute","tier")
);
--> statement-breakpoint
CREATE TABLE "request_tiers_1m" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"input_tokens" bigint NOT NULL,
	"device_tokens" bigint NOT NULL,
	"host_tokens" bigint NOT NULL,
	"disk_tokens" bigint NOT NULL,
	"shared_tokens" bigint NOT NULL,
	"prefetched_tokens" bigint NOT NULL,
	CONSTRAINT "request_tiers_1m_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE TABLE "worker_counters" (
	"worker_id" text PRIMARY KEY NOT NULL,
	"ts" bigint NOT NULL,
	"prefix_query_tokens" text NOT NULL,
	"prefix_hit_tokens" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "worker_tier_blocks" (
	"worker_id" text NOT NULL,
	"tier" text NOT NULL,
	"blocks" bigint NOT NULL,
	"ts" bigint NOT NULL,
	CONSTRAINT "worker_tier_blocks_worker_id_tier_pk" PRIMARY KEY("worker_id","tier")
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "source_status" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"last_success_at" bigint,
	"last_error_at" bigint,
	"last_error" text,
	"error_count" integer DEFAULT 0 NOT NULL,
	"success_count" integer DEFAULT 0 NOT NULL,
	"events_total" bigint DEFAULT 0 NOT NULL,
	"last_events" integer,
	"series" integer,
	"duration_ms" integer,
	"missing" text DEFAULT '[]' NOT NULL,
	"renamed" text DEFAULT '[]' NOT NULL,
	"gaps" integer DEFAULT 0 NOT NULL,
	"detail" text DEFAULT '{}' NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX "kv_tiers_1m_minute" ON "kv_tiers_1m" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "request_tiers_1m_minute" ON "request_tiers_1m" USING btree ("minute");