CREATE TABLE "request_itl_1m" (
	"minute" bigint NOT NULL,
	"worker_id" text NOT NULL,
	"stat" integer NOT NULL,
	"bucket" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "request_itl_1m_minute_worker_id_stat_bucket_pk" PRIMARY KEY("minute","worker_id","stat","bucket")
);
--> statement-breakpoint
CREATE TABLE "request_ttft_1m" (
	"minute" bigint NOT NULL,
	"bucket" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "request_ttft_1m_minute_bucket_pk" PRIMARY KEY("minute","bucket")
);
--> statement-breakpoint
CREATE TABLE "requests_1m" (
	"minute" bigint PRIMARY KEY NOT NULL,
	"requests" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cached_host_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_disk_tokens" bigint DEFAULT 0 NOT NULL,
	"cached_shared_tokens" bigint DEFAULT 0 NOT NULL,
	"prefetched_tokens" bigint DEFAULT 0 NOT NULL,
	"preemptions" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "route_decisions_15m" (
	"minute" bigint NOT NULL,
	"chosen_worker_id" text NOT NULL,
	"decisions" integer NOT NULL,
	"prompt_blocks" bigint NOT NULL,
	"lost_blocks" bigint NOT NULL,
	CONSTRAINT "route_decisions_15m_minute_chosen_worker_id_pk" PRIMARY KEY("minute","chosen_worker_id")
);
--> statement-breakpoint
CREATE TABLE "route_decisions_1m" (
	"minute" bigint NOT NULL,
	"chosen_worker_id" text NOT NULL,
	"decisions" integer NOT NULL,
	"prompt_blocks" bigint NOT NULL,
	"lost_blocks" bigint NOT NULL,
	CONSTRAINT "route_decisions_1m_minute_chosen_worker_id_pk" PRIMARY KEY("minute","chosen_worker_id")
);
--> statement-breakpoint
CREATE TABLE "worker_stats_10s" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"samples" integer NOT NULL,
	"kv_active_sum" bigint NOT NULL,
	"kv_active_max" integer NOT NULL,
	"kv_total_sum" bigint NOT NULL,
	"running_sum" bigint NOT NULL,
	"running_max" integer NOT NULL,
	"waiting_sum" bigint NOT NULL,
	"waiting_max" integer NOT NULL,
	"prefix_query_delta" bigint NOT NULL,
	"prefix_hit_delta" bigint NOT NULL,
	"counter_resets" integer NOT NULL,
	"utilization_max" double precision NOT NULL,
	"preemptions_min" bigint,
	"preemptions_max" bigint,
	"batch_tokens_sum" double precision DEFAULT 0 NOT NULL,
	"batch_samples" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "worker_stats_10s_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE TABLE "worker_stats_15m" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"samples" integer NOT NULL,
	"kv_active_sum" bigint NOT NULL,
	"kv_active_max" integer NOT NULL,
	"kv_total_sum" bigint NOT NULL,
	"running_sum" bigint NOT NULL,
	"running_max" integer NOT NULL,
	"waiting_sum" bigint NOT NULL,
	"waiting_max" integer NOT NULL,
	"prefix_query_delta" bigint NOT NULL,
	"prefix_hit_delta" bigint NOT NULL,
	"counter_resets" integer NOT NULL,
	"utilization_max" double precision NOT NULL,
	"preemptions_min" bigint,
	"preemptions_max" bigint,
	"batch_tokens_sum" double precision DEFAULT 0 NOT NULL,
	"batch_samples" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "worker_stats_15m_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE TABLE "worker_stats_1m" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"samples" integer NOT NULL,
	"kv_active_sum" bigint NOT NULL,
	"kv_active_max" integer NOT NULL,
	"kv_total_sum" bigint NOT NULL,
	"running_sum" bigint NOT NULL,
	"running_max" integer NOT NULL,
	"waiting_sum" bigint NOT NULL,
	"waiting_max" integer NOT NULL,
	"prefix_query_delta" bigint NOT NULL,
	"prefix_hit_delta" bigint NOT NULL,
	"counter_resets" integer NOT NULL,
	"utilization_max" double precision NOT NULL,
	"preemptions_min" bigint,
	"preemptions_max" bigint,
	"batch_tokens_sum" double precision DEFAULT 0 NOT NULL,
	"batch_samples" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "worker_stats_1m_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE TABLE "worker_stats_30s" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"samples" integer NOT NULL,
	"kv_active_sum" bigint NOT NULL,
	"kv_active_max" integer NOT NULL,
	"kv_total_sum" bigint NOT NULL,
	"running_sum" bigint NOT NULL,
	"running_max" integer NOT NULL,
	"waiting_sum" bigint NOT NULL,
	"waiting_max" integer NOT NULL,
	"prefix_query_delta" bigint NOT NULL,
	"prefix_hit_delta" bigint NOT NULL,
	"counter_resets" integer NOT NULL,
	"utilization_max" double precision NOT NULL,
	"preemptions_min" bigint,
	"preemptions_max" bigint,
	"batch_tokens_sum" double precision DEFAULT 0 NOT NULL,
	"batch_samples" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "worker_stats_30s_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE TABLE "worker_stats_5m" (
	"worker_id" text NOT NULL,
	"minute" bigint NOT NULL,
	"samples" integer NOT NULL,
	"kv_active_sum" bigint NOT NULL,
	"kv_active_max" integer NOT NULL,
	"kv_total_sum" bigint NOT NULL,
	"running_sum" bigint NOT NULL,
	"running_max" integer NOT NULL,
	"waiting_sum" bigint NOT NULL,
	"waiting_max" integer NOT NULL,
	"prefix_query_delta" bigint NOT NULL,
	"prefix_hit_delta" bigint NOT NULL,
	"counter_resets" integer NOT NULL,
	"utilization_max" double precision NOT NULL,
	"preemptions_min" bigint,
	"preemptions_max" bigint,
	"batch_tokens_sum" double precision DEFAULT 0 NOT NULL,
	"batch_samples" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "worker_stats_5m_worker_id_minute_pk" PRIMARY KEY("worker_id","minute")
);
--> statement-breakpoint
CREATE INDEX "request_itl_1m_worker" ON "request_itl_1m" USING btree ("worker_id","minute");--> statement-breakpoint
CREATE INDEX "route_decisions_1m_worker" ON "route_decisions_1m" USING btree ("chosen_worker_id","minute");--> statement-breakpoint
CREATE INDEX "worker_stats_10s_minute" ON "worker_stats_10s" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "worker_stats_15m_minute" ON "worker_stats_15m" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "worker_stats_1m_minute" ON "worker_stats_1m" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "worker_stats_30s_minute" ON "worker_stats_30s" USING btree ("minute");--> statement-breakpoint
CREATE INDEX "worker_stats_5m_minute" ON "worker_stats_5m" USING btree ("minute");