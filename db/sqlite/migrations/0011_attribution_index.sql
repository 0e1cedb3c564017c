CREATE TABLE `attr_clears` (
	`worker` integer NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `attr_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`name` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `attr_names_name_unique` ON `attr_names` (`name`);--> statement-breakpoint
DROP TABLE `attr_blocks`;--> statement-breakpoint
CREATE TABLE `attr_blocks` (
	`hash` integer PRIMARY KEY NOT NULL,
	`intervals` blob NOT NULL
);
--> statement-breakpoint
CREATE INDEX `route_decisions_request` ON `route_decisions` (`request_id`);--> statement-breakpoint
CREATE INDEX `reasoning_ts` ON `reasoning_spans` (`ts`);--> statement-breakpoint
CREATE INDEX `tools_ts` ON `tools` (`ts`);--> statement-breakpoint
CREATE INDEX `kvbm_1m_minute` ON `kvbm_1m` (`minute`);--> statement-breakpoint
CREATE INDEX `request_tiers_1m_minute` ON `request_tiers_1m` (`minute`);
