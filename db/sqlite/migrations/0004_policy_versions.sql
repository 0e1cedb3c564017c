CREATE TABLE `control_audit` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`ts` integer NOT NULL,
	`actor` text NOT NULL,
	`action` text NOT NULL,
	`kind` text,
	`version` integer,
	`detail` text DEFAULT '{}' NOT NULL
);
--> statement-breakpoint
CREATE INDEX `control_audit_ts` ON `control_audit` (`ts`);--> statement-breakpoint
CREATE TABLE `control_targets` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`adapter` text NOT NULL,
	`config` text DEFAULT '{}' NOT NULL,
	`kinds` text DEFAULT '[]' NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `policy_versions` (
	`kind` text NOT NULL,
	`version` integer NOT NULL,
	`document` text NOT NULL,
	`author` text NOT NULL,
	`comment` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`based_on` integer,
	PRIMARY KEY(`kind`, `version`)
);
--> statement-breakpoint
CREATE TABLE `rollout_status` (
	`target_id` text NOT NULL,
	`kind` text NOT NULL,
	`desired_version` integer,
	`applied_version` integer,
	`applied_at` integer,
	`state` text NOT NULL,
	`message` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_retry_at` integer,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`target_id`, `kind`),
	FOREIGN KEY (`target_id`) REFERENCES `control_targets`(`id`) ON UPDATE no action ON DELETE cascade
);
