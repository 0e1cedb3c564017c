CREATE TABLE `request_itl_1m` (
	`minute` integer NOT NULL,
	`worker_id` text NOT NULL,
	`stat` integer NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`minute`, `worker_id`, `stat`, `bucket`)
);
--> statement-breakpoint
CREATE INDEX `request_itl_1m_worker` ON `request_itl_1m` (`worker_id`,`minute`);--> statement-breakpoint
ALTER TABLE `worker_stats` ADD `preemptions` text;--> statement-breakpoint
ALTER TABLE `worker_stats` ADD `batch_tokens` real;--> statement-breakpoint
ALTER TABLE `worker_stats_1m` ADD `preemptions_min` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_1m` ADD `preemptions_max` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_1m` ADD `batch_tokens_sum` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_1m` ADD `batch_samples` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `requests` ADD `itl_ms_mean` real;--> statement-breakpoint
ALTER TABLE `requests` ADD `itl_ms_p95` real;--> statement-breakpoint
ALTER TABLE `requests` ADD `preemptions` integer;--> statement-breakpoint
ALTER TABLE `requests_1m` ADD `preemptions` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_10s` ADD `preemptions_min` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_10s` ADD `preemptions_max` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_10s` ADD `batch_tokens_sum` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_10s` ADD `batch_samples` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_15m` ADD `preemptions_min` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_15m` ADD `preemptions_max` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_15m` ADD `batch_tokens_sum` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_15m` ADD `batch_samples` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_30s` ADD `preemptions_min` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_30s` ADD `preemptions_max` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_30s` ADD `batch_tokens_sum` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_30s` ADD `batch_samples` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_5m` ADD `preemptions_min` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_5m` ADD `preemptions_max` integer;--> statement-breakpoint
ALTER TABLE `worker_stats_5m` ADD `batch_tokens_sum` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `worker_stats_5m` ADD `batch_samples` integer DEFAULT 0 NOT NULL;