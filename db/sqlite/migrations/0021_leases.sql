CREATE TABLE `leases` (
	`name` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`since` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `login_failures` (
	`key` text NOT NULL,
	`at` integer NOT NULL,
	`n` integer DEFAULT 1 NOT NULL,
	PRIMARY KEY(`key`, `at`)
);
--> statement-breakpoint
CREATE INDEX `login_failures_at` ON `login_failures` (`at`);