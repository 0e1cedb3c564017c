CREATE TABLE `attr_blocks` (
	`id` integer PRIMARY KEY NOT NULL,
	`hash` integer NOT NULL,
	`worker_id` text NOT NULL,
	`stored_at` integer NOT NULL,
	`removed_at` integer,
	`reason` text
);
--> statement-breakpoint
CREATE INDEX `attr_blocks_hash` ON `attr_blocks` (`hash`,`worker_id`);--> statement-breakpoint
CREATE TABLE `attr_local` (
	`hash` integer PRIMARY KEY NOT NULL,
	`first_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `attr_seen` (
	`hash` integer PRIMARY KEY NOT NULL,
	`first_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `attr_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `causes_1m` (
	`minute` integer PRIMARY KEY NOT NULL,
	`cold` integer NOT NULL,
	`diverged` integer NOT NULL,
	`evicted` integer NOT NULL,
	`routed_away` integer NOT NULL,
	`unknown` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `request_causes` (
	`id` text PRIMARY KEY NOT NULL,
	`request_id` text NOT NULL,
	`session_id` text,
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
CREATE INDEX `request_causes_session` ON `request_causes` (`session_id`);--> statement-breakpoint
CREATE INDEX `request_causes_arrived` ON `request_causes` (`arrived_at`);--> statement-breakpoint
CREATE TABLE `session_summaries` (
	`session_id` text PRIMARY KEY NOT NULL,
	`harness` text,
	`session_type` text,
	`first_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`turns` integer NOT NULL,
	`agents` integer NOT NULL,
	`subagents` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`cached_share` real,
	`cold` integer NOT NULL,
	`diverged` integer NOT NULL,
	`evicted` integer NOT NULL,
	`routed_away` integer NOT NULL,
	`unknown` integer NOT NULL,
	`ttft_p50` integer,
	`tool_calls` integer NOT NULL,
	`tool_wait_ms` integer NOT NULL,
	`errors` integer NOT NULL,
	`duration` integer NOT NULL,
	`local0` text,
	`local1` text
);
--> statement-breakpoint
CREATE INDEX `session_summaries_last` ON `session_summaries` (`last_at`);