CREATE TABLE `preview_results` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`content_hash` text NOT NULL,
	`window_from` integer NOT NULL,
	`window_to` integer NOT NULL,
	`cluster_key` text DEFAULT '' NOT NULL,
	`computed_at` integer NOT NULL,
	`hit_rate` real,
	`ttft_p50_ms` real,
	`ttft_p95_ms` real,
	`result` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `preview_results_content` ON `preview_results` (`kind`,`content_hash`,`computed_at`);--> statement-breakpoint
CREATE INDEX `preview_results_window` ON `preview_results` (`kind`,`content_hash`,`window_from`,`window_to`,`cluster_key`);--> statement-breakpoint
CREATE INDEX `preview_results_computed` ON `preview_results` (`computed_at`);