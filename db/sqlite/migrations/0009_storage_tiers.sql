CREATE TABLE `kv_tiers_1m` (
	`worker_id` text NOT NULL,
	`minute` integer NOT NULL,
	`tier` text NOT NULL,
	`stored_blocks` integer NOT NULL,
	`removed_blocks` integer NOT NULL,
	`offloaded_blocks` integer NOT NULL,
	`onboarded_blocks` integer NOT NULL,
	`blocks` integer NOT NULL,
	PRIMARY KEY(`worker_id`, `minute`, `tier`)
);
--> statement-breakpoint
CREATE INDEX `kv_tiers_1m_minute` ON `kv_tiers_1m` (`minute`);--> statement-breakpoint
CREATE TABLE `kvbm_1m` (
	`worker_id` text NOT NULL,
	`minute` integer NOT NULL,
	`offload_d2h` integer NOT NULL,
	`offload_h2d` integer NOT NULL,
	`offload_d2d` integer NOT NULL,
	`onboard_h2d` integer NOT NULL,
	`onboard_d2d` integer NOT NULL,
	`host_hit_rate` real,
	`disk_hit_rate` real,
	PRIMARY KEY(`worker_id`, `minute`)
);
--> statement-breakpoint
CREATE TABLE `request_tiers_1m` (
	`worker_id` text NOT NULL,
	`minute` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`device_tokens` integer NOT NULL,
	`host_tokens` integer NOT NULL,
	`disk_tokens` integer NOT NULL,
	`shared_tokens` integer NOT NULL,
	`prefetched_tokens` integer NOT NULL,
	PRIMARY KEY(`worker_id`, `minute`)
);
--> statement-breakpoint
CREATE TABLE `worker_tier_blocks` (
	`worker_id` text NOT NULL,
	`tier` text NOT NULL,
	`blocks` integer NOT NULL,
	`ts` integer NOT NULL,
	PRIMARY KEY(`worker_id`, `tier`)
);
--> statement-breakpoint
ALTER TABLE `kv_events` ADD `storage_tier` text;--> statement-breakpoint
ALTER TABLE `kv_events` ADD `onboarded_from` text;--> statement-breakpoint
ALTER TABLE `requests` ADD `cached_device_tokens` integer;--> statement-breakpoint
ALTER TABLE `requests` ADD `cached_host_tokens` integer;--> statement-breakpoint
ALTER TABLE `requests` ADD `cached_disk_tokens` integer;--> statement-breakpoint
ALTER TABLE `requests` ADD `cached_shared_tokens` integer;--> statement-breakpoint
ALTER TABLE `requests` ADD `prefetched_tokens` integer;--> statement-breakpoint
ALTER TABLE `requests_1m` ADD `cached_host_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `requests_1m` ADD `cached_disk_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `requests_1m` ADD `cached_shared_tokens` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `requests_1m` ADD `prefetched_tokens` integer DEFAULT 0 NOT NULL;