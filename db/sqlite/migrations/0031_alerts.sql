CREATE TABLE `alert_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`rule` text NOT NULL,
	`key` text NOT NULL,
	`kind` text NOT NULL,
	`labels` text DEFAULT '{}' NOT NULL,
	`value` real,
	`summary` text NOT NULL,
	`link` text NOT NULL,
	`severity` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_events_ts` ON `alert_events` (`ts`);--> statement-breakpoint
CREATE INDEX `alert_events_rule_ts` ON `alert_events` (`rule`,`ts`);--> statement-breakpoint
CREATE TABLE `alert_receivers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`url` text NOT NULL,
	`secret` text,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `alert_states` (
	`rule` text NOT NULL,
	`key` text NOT NULL,
	`labels` text DEFAULT '{}' NOT NULL,
	`state` text NOT NULL,
	`active_at` integer NOT NULL,
	`fired_at` integer,
	`value` real,
	`summary` text NOT NULL,
	`link` text NOT NULL,
	`severity` text NOT NULL,
	`sent_at` integer,
	PRIMARY KEY(`rule`, `key`)
);
