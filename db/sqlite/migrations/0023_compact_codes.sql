-- Smaller rows and indexes, every value read back as before. kv_events: op and reason stored as small integer codes
-- (db/kv-codes.ts) and read through generated (virtual, unstored) columns of their old names; the never-read
-- session_id of kv.stored events goes. worker_stats, route_decisions, tools, reasoning_spans: the event id is unique
-- with ts in the table's ts index (as kv_events' and PostgreSQL's keys are) instead of in an index of its own.
-- request_causes: keyed by the request's requests rowid (rid) instead of a copy of its text id with an index of its
-- own; its copies of request_id and session_id (never read: readers join on the request) go, with their index. A
-- causes row whose request retention already deleted keeps its counts under -(its old rowid), which no request has.
-- Every table keeps its rowids (cursors and KV list references name them).
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_request_causes` (
	`rid` integer PRIMARY KEY NOT NULL,
	`arrived_at` integer NOT NULL,
	`recomputed` integer NOT NULL,
	`cold` integer NOT NULL,
	`diverged` integer NOT NULL,
	`evicted` integer NOT NULL,
	`routed_away` integer NOT NULL,
	`unknown` integer NOT NULL,
	`evicted_reason` text,
	`retention_version` integer,
	`held_tokens` integer,
	`wait_ms` integer,
	`survived_tokens` integer
);
--> statement-breakpoint
INSERT INTO `__new_request_causes`("rid", "arrived_at", "recomputed", "cold", "diverged", "evicted", "routed_away", "unknown", "evicted_reason", "retention_version", "held_tokens", "wait_ms", "survived_tokens")
  SELECT coalesce((SELECT r."rowid" FROM `requests` r WHERE r."id" = c."id"), -c."rowid"), "arrived_at", "recomputed", "cold", "diverged", "evicted", "routed_away", "unknown", "evicted_reason", "retention_version", "held_tokens", "wait_ms", "survived_tokens" FROM `request_causes` c ORDER BY c."rowid";--> statement-breakpoint
DROP TABLE `request_causes`;--> statement-breakpoint
ALTER TABLE `__new_request_causes` RENAME TO `request_causes`;--> statement-breakpoint
CREATE INDEX `request_causes_arrived` ON `request_causes` (`arrived_at`);--> statement-breakpoint
CREATE TABLE `__new_worker_stats` (
	`id` text NOT NULL,
	`ts` integer NOT NULL,
	`worker_id` text NOT NULL,
	`kv_active_blocks` integer NOT NULL,
	`kv_total_blocks` integer NOT NULL,
	`requests_running` integer NOT NULL,
	`requests_waiting` integer NOT NULL,
	`prefix_query_tokens` text NOT NULL,
	`prefix_hit_tokens` text NOT NULL,
	`preemptions` text,
	`batch_tokens` real,
	`source` text
);
--> statement-breakpoint
INSERT INTO `__new_worker_stats`("rowid", "id", "ts", "worker_id", "kv_active_blocks", "kv_total_blocks", "requests_running", "requests_waiting", "prefix_query_tokens", "prefix_hit_tokens", "preemptions", "batch_tokens", "source")
  SELECT "rowid", "id", "ts", "worker_id", "kv_active_blocks", "kv_total_blocks", "requests_running", "requests_waiting", "prefix_query_tokens", "prefix_hit_tokens", "preemptions", "batch_tokens", "source" FROM `worker_stats` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `worker_stats`;--> statement-breakpoint
ALTER TABLE `__new_worker_stats` RENAME TO `worker_stats`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `worker_stats_ts` ON `worker_stats` (`ts`,`id`);--> statement-breakpoint
CREATE INDEX `worker_stats_worker_ts` ON `worker_stats` (`worker_id`,`ts`);--> statement-breakpoint
CREATE TABLE `__new_route_decisions` (
	`id` text NOT NULL,
	`ts` integer NOT NULL,
	`request_id` text NOT NULL,
	`session_id` text,
	`trajectory_id` text,
	`prompt_blocks` integer NOT NULL,
	`chosen_worker_id` text NOT NULL,
	`chosen_overlap_blocks` integer NOT NULL,
	`best_overlap_blocks` integer NOT NULL,
	`candidate_count` integer NOT NULL,
	`candidates` text NOT NULL,
	`overlap_credit` real NOT NULL,
	`prefill_load_scale` real NOT NULL,
	`temperature` real NOT NULL,
	`source` text
);
--> statement-breakpoint
INSERT INTO `__new_route_decisions`("rowid", "id", "ts", "request_id", "session_id", "trajectory_id", "prompt_blocks", "chosen_worker_id", "chosen_overlap_blocks", "best_overlap_blocks", "candidate_count", "candidates", "overlap_credit", "prefill_load_scale", "temperature", "source")
  SELECT "rowid", "id", "ts", "request_id", "session_id", "trajectory_id", "prompt_blocks", "chosen_worker_id", "chosen_overlap_blocks", "best_overlap_blocks", "candidate_count", "candidates", "overlap_credit", "prefill_load_scale", "temperature", "source" FROM `route_decisions` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `route_decisions`;--> statement-breakpoint
ALTER TABLE `__new_route_decisions` RENAME TO `route_decisions`;--> statement-breakpoint
CREATE UNIQUE INDEX `route_decisions_ts` ON `route_decisions` (`ts`,`id`);--> statement-breakpoint
CREATE INDEX `route_decisions_worker_ts` ON `route_decisions` (`chosen_worker_id`,`ts`);--> statement-breakpoint
CREATE INDEX `route_decisions_request` ON `route_decisions` (`request_id`);--> statement-breakpoint
CREATE TABLE `__new_reasoning_spans` (
	`id` text NOT NULL,
	`ts` integer NOT NULL,
	`request_id` text NOT NULL,
	`tool_call_id` text,
	`tokens` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer NOT NULL,
	`source` text
);
--> statement-breakpoint
INSERT INTO `__new_reasoning_spans`("rowid", "id", "ts", "request_id", "tool_call_id", "tokens", "started_at", "ended_at", "source")
  SELECT "rowid", "id", "ts", "request_id", "tool_call_id", "tokens", "started_at", "ended_at", "source" FROM `reasoning_spans` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `reasoning_spans`;--> statement-breakpoint
ALTER TABLE `__new_reasoning_spans` RENAME TO `reasoning_spans`;--> statement-breakpoint
CREATE INDEX `reasoning_request` ON `reasoning_spans` (`request_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `reasoning_ts` ON `reasoning_spans` (`ts`,`id`);--> statement-breakpoint
CREATE TABLE `__new_tools` (
	`id` text NOT NULL,
	`ts` integer NOT NULL,
	`session_id` text NOT NULL,
	`trajectory_id` text,
	`request_id` text,
	`tool_call_id` text NOT NULL,
	`name` text NOT NULL,
	`dispatched_at` integer,
	`started_at` integer NOT NULL,
	`ended_at` integer,
	`status` text NOT NULL,
	`output_bytes` integer,
	`output_tokens` integer,
	`truncated` integer,
	`budget_unit` text,
	`budget_limit` integer,
	`source` text
);
--> statement-breakpoint
INSERT INTO `__new_tools`("rowid", "id", "ts", "session_id", "trajectory_id", "request_id", "tool_call_id", "name", "dispatched_at", "started_at", "ended_at", "status", "output_bytes", "output_tokens", "truncated", "budget_unit", "budget_limit", "source")
  SELECT "rowid", "id", "ts", "session_id", "trajectory_id", "request_id", "tool_call_id", "name", "dispatched_at", "started_at", "ended_at", "status", "output_bytes", "output_tokens", "truncated", "budget_unit", "budget_limit", "source" FROM `tools` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `tools`;--> statement-breakpoint
ALTER TABLE `__new_tools` RENAME TO `tools`;--> statement-breakpoint
CREATE INDEX `tools_session` ON `tools` (`session_id`,`started_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `tools_ts` ON `tools` (`ts`,`id`);--> statement-breakpoint
CREATE TABLE `__new_kv_events` (
	`id` text,
	`id_key` integer,
	`ts` integer NOT NULL,
	`op_code` integer NOT NULL,
	`op` text GENERATED ALWAYS AS (CASE op_code WHEN 0 THEN 'removed' WHEN 1 THEN 'stored' WHEN 2 THEN 'cleared' END) VIRTUAL,
	`worker_id` text NOT NULL,
	`block_count` integer NOT NULL,
	`block_hashes` blob,
	`parent_hash` blob,
	`local_hashes` blob,
	`retention_class` text,
	`reason_code` integer,
	`reason` text GENERATED ALWAYS AS (CASE reason_code WHEN 0 THEN 'capacity' WHEN 1 THEN 'ttl' WHEN 2 THEN 'agent_end' WHEN 3 THEN 'session_end' WHEN 4 THEN 'cleared' WHEN 5 THEN 'offloaded' WHEN 6 THEN 'unknown' END) VIRTUAL,
	`source` text,
	`storage_tier` text,
	`onboarded_from` text,
	`block_refs` blob
);
--> statement-breakpoint
INSERT INTO `__new_kv_events`("rowid", "id", "id_key", "ts", "op_code", "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", "reason_code", "source", "storage_tier", "onboarded_from", "block_refs")
  SELECT "rowid", "id", "id_key", "ts", CASE "op" WHEN 'removed' THEN 0 WHEN 'stored' THEN 1 WHEN 'cleared' THEN 2 END, "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", CASE "reason" WHEN 'capacity' THEN 0 WHEN 'ttl' THEN 1 WHEN 'agent_end' THEN 2 WHEN 'session_end' THEN 3 WHEN 'cleared' THEN 4 WHEN 'offloaded' THEN 5 WHEN 'unknown' THEN 6 END, "source", "storage_tier", "onboarded_from", "block_refs" FROM `kv_events` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `kv_events`;--> statement-breakpoint
ALTER TABLE `__new_kv_events` RENAME TO `kv_events`;--> statement-breakpoint
CREATE UNIQUE INDEX `kv_events_ts_key` ON `kv_events` (`ts`,`id_key`);--> statement-breakpoint
CREATE INDEX `kv_events_worker_ts` ON `kv_events` (`worker_id`,`ts`);