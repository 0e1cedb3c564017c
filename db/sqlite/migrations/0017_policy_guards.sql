CREATE TABLE `policy_guards` (
	`kind` text NOT NULL,
	`version` integer NOT NULL,
	`ttft_p95_rise_pct` real,
	`hit_rate_drop_points` real,
	`window_minutes` integer NOT NULL,
	`created_at` integer NOT NULL,
	`state` text NOT NULL,
	`applied_at` integer,
	`checked_at` integer,
	`message` text DEFAULT '' NOT NULL,
	`reason` text,
	`detail` text,
	`rollback_version` integer,
	PRIMARY KEY(`kind`, `version`)
);
--> statement-breakpoint
CREATE INDEX `policy_guards_state` ON `policy_guards` (`state`);