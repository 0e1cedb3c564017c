CREATE TABLE `attr_blocks` (
	`hash` integer PRIMARY KEY NOT NULL,
	`intervals` blob NOT NULL
);
--> statement-breakpoint
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
CREATE UNIQUE INDEX `attr_names_name_unique` ON `attr_names` (`name`);