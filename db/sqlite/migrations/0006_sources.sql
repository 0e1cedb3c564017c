CREATE TABLE `source_status` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`last_success_at` integer,
	`last_error_at` integer,
	`last_error` text,
	`error_count` integer DEFAULT 0 NOT NULL,
	`success_count` integer DEFAULT 0 NOT NULL,
	`events_total` integer DEFAULT 0 NOT NULL,
	`last_events` integer,
	`series` integer,
	`duration_ms` integer,
	`missing` text DEFAULT '[]' NOT NULL,
	`renamed` text DEFAULT '[]' NOT NULL,
	`gaps` integer DEFAULT 0 NOT NULL,
	`detail` text DEFAULT '{}' NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`origin` text DEFAULT 'ui' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
