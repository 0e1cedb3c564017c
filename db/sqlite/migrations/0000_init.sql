CREATE TABLE `worker_counters` (
	`worker_id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`prefix_query_tokens` text NOT NULL,
	`prefix_hit_tokens` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `worker_events` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`kind` text NOT NULL,
	`worker_id` text NOT NULL,
	`role` text,
	`model` text,
	`kv_total_blocks` integer,
	`block_size` integer,
	`reason` text,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `worker_events_worker_ts` ON `worker_events` (`worker_id`,`ts`);--> statement-breakpoint
CREATE INDEX `worker_events_ts` ON `worker_events` (`ts`);--> statement-breakpoint
CREATE TABLE `worker_stats` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`worker_id` text NOT NULL,
	`kv_active_blocks` integer NOT NULL,
	`kv_total_blocks` integer NOT NULL,
	`requests_running` integer NOT NULL,
	`requests_waiting` integer NOT NULL,
	`prefix_query_tokens` text NOT NULL,
	`prefix_hit_tokens` text NOT NULL,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `worker_stats_ts` ON `worker_stats` (`ts`);--> statement-breakpoint
CREATE INDEX `worker_stats_worker_ts` ON `worker_stats` (`worker_id`,`ts`);--> statement-breakpoint
CREATE TABLE `worker_stats_1m` (
	`worker_id` text NOT NULL,
	`minute` integer NOT NULL,
	`samples` integer NOT NULL,
	`kv_active_sum` integer NOT NULL,
	`kv_active_max` integer NOT NULL,
	`kv_total_sum` integer NOT NULL,
	`running_sum` integer NOT NULL,
	`running_max` integer NOT NULL,
	`waiting_sum` integer NOT NULL,
	`waiting_max` integer NOT NULL,
	`prefix_query_delta` integer NOT NULL,
	`prefix_hit_delta` integer NOT NULL,
	`counter_resets` integer NOT NULL,
	`utilization_max` real NOT NULL,
	PRIMARY KEY(`worker_id`, `minute`)
);
--> statement-breakpoint
CREATE INDEX `worker_stats_1m_minute` ON `worker_stats_1m` (`minute`);--> statement-breakpoint
CREATE TABLE `workers` (
	`worker_id` text PRIMARY KEY NOT NULL,
	`role` text,
	`model` text,
	`block_size` integer,
	`kv_total_blocks` integer,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`up_at` integer,
	`down_at` integer,
	`down_reason` text
);
--> statement-breakpoint
CREATE TABLE `kv_events` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`op` text NOT NULL,
	`worker_id` text NOT NULL,
	`block_count` integer NOT NULL,
	`block_hashes` text,
	`parent_hash` text,
	`local_hashes` text,
	`retention_class` text,
	`session_id` text,
	`reason` text,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `kv_events_ts` ON `kv_events` (`ts`);--> statement-breakpoint
CREATE INDEX `kv_events_worker_ts` ON `kv_events` (`worker_id`,`ts`);--> statement-breakpoint
CREATE TABLE `route_decisions` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `route_decisions_ts` ON `route_decisions` (`ts`);--> statement-breakpoint
CREATE INDEX `route_decisions_session` ON `route_decisions` (`session_id`);--> statement-breakpoint
CREATE INDEX `route_decisions_worker_ts` ON `route_decisions` (`chosen_worker_id`,`ts`);--> statement-breakpoint
CREATE TABLE `requests` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`request_id` text NOT NULL,
	`session_id` text,
	`trajectory_id` text,
	`parent_trajectory_id` text,
	`session_type` text,
	`harness` text,
	`api` text NOT NULL,
	`model` text NOT NULL,
	`worker_id` text,
	`arrived_at` integer NOT NULL,
	`first_token_at` integer,
	`finished_at` integer,
	`input_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`reasoning_tokens` integer,
	`finish_reason` text,
	`status` text NOT NULL,
	`agent_hints` text,
	`block_size` integer,
	`sequence_hashes` text,
	`local_hashes` text,
	`policy_versions` text,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `requests_arrived` ON `requests` (`arrived_at`);--> statement-breakpoint
CREATE INDEX `requests_session` ON `requests` (`session_id`,`arrived_at`);--> statement-breakpoint
CREATE INDEX `requests_request` ON `requests` (`request_id`);--> statement-breakpoint
CREATE INDEX `requests_worker` ON `requests` (`worker_id`,`arrived_at`);--> statement-breakpoint
CREATE TABLE `reasoning_spans` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`request_id` text NOT NULL,
	`tool_call_id` text,
	`tokens` integer NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer NOT NULL,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `reasoning_request` ON `reasoning_spans` (`request_id`);--> statement-breakpoint
CREATE TABLE `tools` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `tools_session` ON `tools` (`session_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `planner_decisions` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`role` text NOT NULL,
	`metric` text NOT NULL,
	`observed` real NOT NULL,
	`scale_up_threshold` real NOT NULL,
	`scale_down_threshold` real NOT NULL,
	`action` text NOT NULL,
	`replicas_before` integer NOT NULL,
	`replicas_after` integer NOT NULL,
	`reason` text NOT NULL,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `planner_decisions_ts` ON `planner_decisions` (`ts`);--> statement-breakpoint
CREATE INDEX `planner_decisions_role_ts` ON `planner_decisions` (`role`,`ts`);--> statement-breakpoint
CREATE TABLE `policy_acks` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`target` text NOT NULL,
	`policy_kind` text NOT NULL,
	`version` integer NOT NULL,
	`status` text NOT NULL,
	`message` text,
	`source` text
);
--> statement-breakpoint
CREATE INDEX `policy_acks_ts` ON `policy_acks` (`ts`);--> statement-breakpoint
CREATE INDEX `policy_acks_target` ON `policy_acks` (`target`,`policy_kind`,`ts`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL,
	`updated_at` integer NOT NULL
);
