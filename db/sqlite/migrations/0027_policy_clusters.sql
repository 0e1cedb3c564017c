-- Policies belong to a cluster: versions and guards are numbered per (cluster, kind), and a target receives its
-- cluster's versions. Everything stored before belongs to "default".
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_policy_guards` (
	`cluster` text DEFAULT 'default' NOT NULL,
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
	PRIMARY KEY(`cluster`, `kind`, `version`)
);
--> statement-breakpoint
INSERT INTO `__new_policy_guards`("cluster", "kind", "version", "ttft_p95_rise_pct", "hit_rate_drop_points", "window_minutes", "created_at", "state", "applied_at", "checked_at", "message", "reason", "detail", "rollback_version") SELECT 'default', "kind", "version", "ttft_p95_rise_pct", "hit_rate_drop_points", "window_minutes", "created_at", "state", "applied_at", "checked_at", "message", "reason", "detail", "rollback_version" FROM `policy_guards`;--> statement-breakpoint
DROP TABLE `policy_guards`;--> statement-breakpoint
ALTER TABLE `__new_policy_guards` RENAME TO `policy_guards`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `policy_guards_state` ON `policy_guards` (`state`);--> statement-breakpoint
CREATE TABLE `__new_policy_versions` (
	`cluster` text DEFAULT 'default' NOT NULL,
	`kind` text NOT NULL,
	`version` integer NOT NULL,
	`document` text NOT NULL,
	`author` text NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`based_on` integer,
	PRIMARY KEY(`cluster`, `kind`, `version`)
);
--> statement-breakpoint
INSERT INTO `__new_policy_versions`("cluster", "kind", "version", "document", "author", "comment", "created_at", "based_on") SELECT 'default', "kind", "version", "document", "author", "comment", "created_at", "based_on" FROM `policy_versions`;--> statement-breakpoint
DROP TABLE `policy_versions`;--> statement-breakpoint
ALTER TABLE `__new_policy_versions` RENAME TO `policy_versions`;--> statement-breakpoint
ALTER TABLE `control_audit` ADD `cluster` text;--> statement-breakpoint
ALTER TABLE `control_targets` ADD `cluster` text DEFAULT 'default' NOT NULL;