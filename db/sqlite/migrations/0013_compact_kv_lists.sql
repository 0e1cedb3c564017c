ALTER TABLE `kv_events` ADD `block_refs` blob;--> statement-breakpoint
CREATE TABLE `attr_lists` (
	`id` integer PRIMARY KEY NOT NULL,
	`refs` integer NOT NULL,
	`intervals` blob NOT NULL
);
--> statement-breakpoint
INSERT INTO `attr_lists` (`id`, `refs`, `intervals`) SELECT row_number() OVER (ORDER BY `hash`), 1, `intervals` FROM `attr_blocks`;--> statement-breakpoint
CREATE TABLE `__new_attr_blocks` (
	`hash` integer PRIMARY KEY NOT NULL,
	`list` integer DEFAULT 0 NOT NULL,
	`first_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_attr_blocks` (`hash`, `list`) SELECT `hash`, row_number() OVER (ORDER BY `hash`) FROM `attr_blocks`;--> statement-breakpoint
INSERT INTO `__new_attr_blocks` (`hash`, `first_at`) SELECT `hash`, `first_at` FROM `attr_seen` WHERE true ON CONFLICT(`hash`) DO UPDATE SET `first_at` = excluded.`first_at`;--> statement-breakpoint
DROP TABLE `attr_blocks`;--> statement-breakpoint
ALTER TABLE `__new_attr_blocks` RENAME TO `attr_blocks`;--> statement-breakpoint
DROP TABLE `attr_seen`;
