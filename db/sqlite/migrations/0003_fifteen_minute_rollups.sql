CREATE TABLE `route_decisions_15m` (
	`minute` integer NOT NULL,
	`chosen_worker_id` text NOT NULL,
	`decisions` integer NOT NULL,
	`prompt_blocks` integer NOT NULL,
	`lost_blocks` integer NOT NULL,
	PRIMARY KEY(`minute`, `chosen_worker_id`)
);
--> statement-breakpoint
CREATE TABLE `worker_stats_15m` (
	`worker_id` text NOT NULL,
	`minute` integer NOT NULL,
	`samples` integer NOT NULL,
	`kv_active_sum` integer NOT NULL,
	`kv_active_max` integer NOT NULL,
	`kv_total_sum` integer NOT NULL,
	`running_sum` integer NOT NULL,
	`running_max` integer NOT NULL,
	`waiting_sum` integer NOT NULL,
	`waiting_max` integer NOT NULL,
	`prefix_query_delta` integer NOT NULL,
	`prefix_hit_delta` integer NOT NULL,
	`counter_resets` integer NOT NULL,
	`utilization_max` real NOT NULL,
	PRIMARY KEY(`worker_id`, `minute`)
);
--> statement-breakpoint
CREATE INDEX `worker_stats_15m_minute` ON `worker_stats_15m` (`minute`);--> statement-breakpoint
INSERT INTO `worker_stats_15m` SELECT `worker_id`, `minute` - `minute` % 900000, sum(`samples`), sum(`kv_active_sum`), max(`kv_active_max`), sum(`kv_total_sum`),
  sum(`running_sum`), max(`running_max`), sum(`waiting_sum`), max(`waiting_max`), sum(`prefix_query_delta`), sum(`prefix_hit_delta`),
  sum(`counter_resets`), max(`utilization_max`) FROM `worker_stats_1m` GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO `route_decisions_15m` SELECT `minute` - `minute` % 900000, `chosen_worker_id`, sum(`decisions`), sum(`prompt_blocks`), sum(`lost_blocks`)
  FROM `route_decisions_1m` GROUP BY 1, 2;
