CREATE TABLE `request_ttft_1m` (
	`minute` integer NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`minute`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `requests_1m` (
	`minute` integer PRIMARY KEY NOT NULL,
	`requests` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `route_decisions_1m` (
	`minute` integer NOT NULL,
	`chosen_worker_id` text NOT NULL,
	`decisions` integer NOT NULL,
	`prompt_blocks` integer NOT NULL,
	`lost_blocks` integer NOT NULL,
	PRIMARY KEY(`minute`, `chosen_worker_id`)
);
--> statement-breakpoint
CREATE INDEX `route_decisions_1m_worker` ON `route_decisions_1m` (`chosen_worker_id`,`minute`);--> statement-breakpoint
INSERT INTO `requests_1m` (`minute`, `requests`, `input_tokens`, `cached_tokens`, `output_tokens`)
  SELECT `arrived_at` - `arrived_at` % 60000, count(*), sum(`input_tokens`), sum(`cached_tokens`), sum(`output_tokens`) FROM `requests` GROUP BY 1;
--> statement-breakpoint
INSERT INTO `request_ttft_1m` (`minute`, `bucket`, `n`)
  SELECT `arrived_at` - `arrived_at` % 60000,
    CASE WHEN `first_token_at` - `arrived_at` <= 1 THEN 0 ELSE min(255, ceil(ln(`first_token_at` - `arrived_at`) / ln(1.1) - 1e-9)) END, count(*)
  FROM `requests` WHERE `first_token_at` IS NOT NULL GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `route_decisions_1m` (`minute`, `chosen_worker_id`, `decisions`, `prompt_blocks`, `lost_blocks`)
  SELECT `ts` - `ts` % 60000, `chosen_worker_id`, count(*), sum(`prompt_blocks`), sum(`best_overlap_blocks` - `chosen_overlap_blocks`) FROM `route_decisions` GROUP BY 1, 2;
