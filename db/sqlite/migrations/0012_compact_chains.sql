PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_kv_events` (
	`id` text PRIMARY KEY NOT NULL,
	`ts` integer NOT NULL,
	`op` text NOT NULL,
	`worker_id` text NOT NULL,
	`block_count` integer NOT NULL,
	`block_hashes` blob,
	`parent_hash` blob,
	`local_hashes` blob,
	`retention_class` text,
	`session_id` text,
	`reason` text,
	`source` text,
	`storage_tier` text,
	`onboarded_from` text
);
--> statement-breakpoint
INSERT INTO `__new_kv_events`("id", "ts", "op", "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", "session_id", "reason", "source", "storage_tier", "onboarded_from") SELECT "id", "ts", "op", "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", "session_id", "reason", "source", "storage_tier", "onboarded_from" FROM `kv_events`;--> statement-breakpoint
DROP TABLE `kv_events`;--> statement-breakpoint
ALTER TABLE `__new_kv_events` RENAME TO `kv_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `kv_events_ts` ON `kv_events` (`ts`);--> statement-breakpoint
CREATE INDEX `kv_events_worker_ts` ON `kv_events` (`worker_id`,`ts`);--> statement-breakpoint
CREATE TABLE `__new_requests` (
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
	`sequence_hashes` blob,
	`local_hashes` blob,
	`chain_base` text,
	`seq_shared` integer DEFAULT 0 NOT NULL,
	`local_shared` integer DEFAULT 0 NOT NULL,
	`seq_count` integer,
	`local_count` integer,
	`policy_versions` text,
	`itl_ms_mean` real,
	`itl_ms_p95` real,
	`preemptions` integer,
	`source` text,
	`cached_device_tokens` integer,
	`cached_host_tokens` integer,
	`cached_disk_tokens` integer,
	`cached_shared_tokens` integer,
	`prefetched_tokens` integer
);
--> statement-breakpoint
INSERT INTO `__new_requests`("id", "ts", "request_id", "session_id", "trajectory_id", "parent_trajectory_id", "session_type", "harness", "api", "model", "worker_id", "arrived_at", "first_token_at", "finished_at", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "finish_reason", "status", "agent_hints", "block_size", "sequence_hashes", "local_hashes", "chain_base", "seq_shared", "local_shared", "seq_count", "local_count", "policy_versions", "itl_ms_mean", "itl_ms_p95", "preemptions", "source", "cached_device_tokens", "cached_host_tokens", "cached_disk_tokens", "cached_shared_tokens", "prefetched_tokens") SELECT "id", "ts", "request_id", "session_id", "trajectory_id", "parent_trajectory_id", "session_type", "harness", "api", "model", "worker_id", "arrived_at", "first_token_at", "finished_at", "input_tokens", "cached_tokens", "output_tokens", "reasoning_tokens", "finish_reason", "status", "agent_hints", "block_size", "sequence_hashes", "local_hashes", NULL, 0, 0, NULL, NULL, "policy_versions", "itl_ms_mean", "itl_ms_p95", "preemptions", "source", "cached_device_tokens", "cached_host_tokens", "cached_disk_tokens", "cached_shared_tokens", "prefetched_tokens" FROM `requests`;--> statement-breakpoint
DROP TABLE `requests`;--> statement-breakpoint
ALTER TABLE `__new_requests` RENAME TO `requests`;--> statement-breakpoint
CREATE INDEX `requests_arrived` ON `requests` (`arrived_at`);--> statement-breakpoint
CREATE INDEX `requests_session` ON `requests` (`session_id`,`arrived_at`);--> statement-breakpoint
CREATE INDEX `requests_request` ON `requests` (`request_id`);--> statement-breakpoint
CREATE INDEX `requests_worker` ON `requests` (`worker_id`,`arrived_at`);--> statement-breakpoint
CREATE INDEX `requests_chain_base` ON `requests` (`chain_base`);