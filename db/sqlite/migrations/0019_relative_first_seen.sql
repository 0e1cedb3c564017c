-- First-seen times of the attribution index in ms after an epoch kept in attr_state (the earliest time on disk). Both
-- tables are rebuilt in key order: their pages filled, instead of the rows shrinking in place inside half-empty pages.
INSERT INTO `attr_state` (`key`, `value`)
  SELECT 'epoch', min(`m`) FROM (
    SELECT min(`first_at`) AS `m` FROM `attr_blocks` UNION ALL SELECT min(`first_at`) FROM `attr_local`
  ) HAVING min(`m`) IS NOT NULL;--> statement-breakpoint
CREATE TABLE `__new_attr_blocks` (
	`hash` integer PRIMARY KEY NOT NULL,
	`list` integer DEFAULT 0 NOT NULL,
	`first_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_attr_blocks` (`hash`, `list`, `first_at`)
  SELECT `hash`, `list`, `first_at` - (SELECT `value` FROM `attr_state` WHERE `key` = 'epoch') FROM `attr_blocks` ORDER BY `hash`;--> statement-breakpoint
DROP TABLE `attr_blocks`;--> statement-breakpoint
ALTER TABLE `__new_attr_blocks` RENAME TO `attr_blocks`;--> statement-breakpoint
CREATE TABLE `__new_attr_local` (
	`hash` integer PRIMARY KEY NOT NULL,
	`first_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_attr_local` (`hash`, `first_at`)
  SELECT `hash`, `first_at` - (SELECT `value` FROM `attr_state` WHERE `key` = 'epoch') FROM `attr_local` ORDER BY `hash`;--> statement-breakpoint
DROP TABLE `attr_local`;--> statement-breakpoint
ALTER TABLE `__new_attr_local` RENAME TO `attr_local`;
