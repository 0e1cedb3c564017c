-- Edited after drizzle-kit generate: the event tables are PARTITION BY RANGE (ts), one partition a day (db/pg/partitions.ts).
CREATE TABLE "worker_events" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"kind" text NOT NULL,
	"worker_id" text NOT NULL,
	"role" text,
	"model" text,
	"kv_total_blocks" integer,
	"block_size" integer,
	"reason" text,
	"source" text,
	CONSTRAINT "worker_events_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "worker_stats" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"worker_id" text NOT NULL,
	"kv_active_blocks" integer NOT NULL,
	"kv_total_blocks" integer NOT NULL,
	"requests_running" integer NOT NULL,
	"requests_waiting" integer NOT NULL,
	"prefix_query_tokens" text NOT NULL,
	"prefix_hit_tokens" text NOT NULL,
	"preemptions" text,
	"batch_tokens" double precision,
	"source" text,
	CONSTRAINT "worker_stats_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "workers" (
	"worker_id" text PRIMARY KEY NOT NULL,
	"role" text,
	"model" text,
	"block_size" integer,
	"kv_total_blocks" integer,
	"first_seen" bigint NOT NULL,
	"last_seen" bigint NOT NULL,
	"up_at" bigint,
	"down_at" bigint,
	"down_reason" text
);
--> statement-breakpoint
CREATE TABLE "kv_events" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"op" text NOT NULL,
	"worker_id" text NOT NULL,
	"block_count" integer NOT NULL,
	"block_hashes" "bytea",
	"parent_hash" "bytea",
	"local_hashes" "bytea",
	"retention_class" text,
	"session_id" text,
	"reason" text,
	"source" text,
	"storage_tier" text,
	"onboarded_from" text,
	"block_refs" "bytea",
	CONSTRAINT "kv_events_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "planner_decisions" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"role" text NOT NULL,
	"metric" text NOT NULL,
	"observed" double precision NOT NULL,
	"scale_up_threshold" double precision NOT NULL,
	"scale_down_threshold" double precision NOT NULL,
	"action" text NOT NULL,
	"replicas_before" integer NOT NULL,
	"replicas_after" integer NOT NULL,
	"reason" text NOT NULL,
	"source" text,
	CONSTRAINT "planner_decisions_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "policy_acks" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"target" text NOT NULL,
	"policy_kind" text NOT NULL,
	"version" integer NOT NULL,
	"status" text NOT NULL,
	"message" text,
	"source" text,
	CONSTRAINT "policy_acks_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "reasoning_spans" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"request_id" text NOT NULL,
	"tool_call_id" text,
	"tokens" integer NOT NULL,
	"started_at" bigint NOT NULL,
	"ended_at" bigint NOT NULL,
	"source" text,
	CONSTRAINT "reasoning_spans_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "route_decisions" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"request_id" text NOT NULL,
	"session_id" text,
	"trajectory_id" text,
	"prompt_blocks" integer NOT NULL,
	"chosen_worker_id" text NOT NULL,
	"chosen_overlap_blocks" integer NOT NULL,
	"best_overlap_blocks" integer NOT NULL,
	"candidate_count" integer NOT NULL,
	"candidates" text NOT NULL,
	"overlap_credit" double precision NOT NULL,
	"prefill_load_scale" double precision NOT NULL,
	"temperature" double precision NOT NULL,
	"source" text,
	CONSTRAINT "route_decisions_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "tools" (
	"id" text NOT NULL,
	"ts" bigint NOT NULL,
	"session_id" text NOT NULL,
	"trajectory_id" text,
	"request_id" text,
	"tool_call_id" text NOT NULL,
	"name" text NOT NULL,
	"dispatched_at" bigint,
	"started_at" bigint NOT NULL,
	"ended_at" bigint,
	"status" text NOT NULL,
	"output_bytes" bigint,
	"output_tokens" integer,
	"truncated" boolean,
	"budget_unit" text,
	"budget_limit" bigint,
	"source" text,
	CONSTRAINT "tools_id_ts_pk" PRIMARY KEY("id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "requests" (
	"id" text PRIMARY KEY NOT NULL,
	"ts" bigint NOT NULL,
	"request_id" text NOT NULL,
	"session_id" text,
	"trajectory_id" text,
	"parent_trajectory_id" text,
	"session_type" text,
	"harness" text,
	"api" text NOT NULL,
	"model" text NOT NULL,
	"worker_id" text,
	"arrived_at" bigint NOT NULL,
	"first_token_at" bigint,
	"finished_at" bigint,
	"input_tokens" integer NOT NULL,
	"cached_tokens" integer NOT NULL,
	"output_tokens" integer NOT NULL,
	"reasoning_tokens" integer,
	"finish_reason" text,
	"status" text NOT NULL,
	"agent_hints" text,
	"block_size" integer,
	"sequence_hashes" "bytea",
	"local_hashes" "bytea",
	"chain_base" text,
	"seq_shared" integer DEFAULT 0 NOT NULL,
	"local_shared" integer DEFAULT 0 NOT NULL,
	"seq_count" integer,
	"local_count" integer,
	"policy_versions" text,
	"itl_ms_mean" double precision,
	"itl_ms_p95" double precision,
	"preemptions" integer,
	"source" text,
	"cached_device_tokens" integer,
	"cached_host_tokens" integer,
	"cached_disk_tokens" integer,
	"cached_shared_tokens" integer,
	"prefetched_tokens" integer,
	"onboard_ms" double precision
);
--> statement-breakpoint
CREATE INDEX "worker_events_worker_ts" ON "worker_events" USING btree ("worker_id","ts");--> statement-breakpoint
CREATE INDEX "worker_stats_worker_ts" ON "worker_stats" USING btree ("worker_id","ts");--> statement-breakpoint
CREATE INDEX "kv_events_worker_ts" ON "kv_events" USING btree ("worker_id","ts");--> statement-breakpoint
CREATE INDEX "planner_decisions_role_ts" ON "planner_decisions" USING btree ("role","ts");--> statement-breakpoint
CREATE INDEX "policy_acks_target" ON "policy_acks" USING btree ("target","policy_kind","ts");--> statement-breakpoint
CREATE INDEX "reasoning_request" ON "reasoning_spans" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "route_decisions_worker_ts" ON "route_decisions" USING btree ("chosen_worker_id","ts");--> statement-breakpoint
CREATE INDEX "route_decisions_request" ON "route_decisions" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "tools_session" ON "tools" USING btree ("session_id","started_at");--> statement-breakpoint
CREATE INDEX "requests_arrived" ON "requests" USING btree ("arrived_at");--> statement-breakpoint
CREATE INDEX "requests_session" ON "requests" USING btree ("session_id","arrived_at");--> statement-breakpoint
CREATE INDEX "requests_request" ON "requests" USING btree ("request_id");--> statement-breakpoint
CREATE INDEX "requests_worker" ON "requests" USING btree ("worker_id","arrived_at");