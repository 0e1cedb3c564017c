CREATE TABLE `worker_stats_10s` (
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
CREATE INDEX `worker_stats_10s_minute` ON `worker_stats_10s` (`minute`,`worker_id`,`samples`,`kv_active_sum`,`kv_total_sum`,`prefix_query_delta`,`prefix_hit_delta`);--> statement-breakpoint
CREATE TABLE `worker_stats_30s` (
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
CREATE INDEX `worker_stats_30s_minute` ON `worker_stats_30s` (`minute`,`worker_id`,`samples`,`kv_active_sum`,`kv_total_sum`,`prefix_query_delta`,`prefix_hit_delta`);--> statement-breakpoint
CREATE TABLE `worker_stats_5m` (
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
CREATE INDEX `worker_stats_5m_minute` ON `worker_stats_5m` (`minute`,`worker_id`,`samples`,`kv_active_sum`,`kv_total_sum`,`prefix_query_delta`,`prefix_hit_delta`);--> statement-breakpoint
DROP INDEX `worker_stats_1m_minute`;--> statement-breakpoint
CREATE INDEX `worker_stats_1m_minute` ON `worker_stats_1m` (`minute`,`worker_id`,`samples`,`kv_active_sum`,`kv_total_sum`,`prefix_query_delta`,`prefix_hit_delta`);--> statement-breakpoint
INSERT INTO `worker_stats_5m` (`worker_id`, `minute`, `samples`, `kv_active_sum`, `kv_active_max`, `kv_total_sum`, `running_sum`, `running_max`,
  `waiting_sum`, `waiting_max`, `prefix_query_delta`, `prefix_hit_delta`, `counter_resets`, `utilization_max`)
  SELECT `worker_id`, `minute` - `minute` % 300000, sum(`samples`), sum(`kv_active_sum`), max(`kv_active_max`), sum(`kv_total_sum`),
  sum(`running_sum`), max(`running_max`), sum(`waiting_sum`), max(`waiting_max`), sum(`prefix_query_delta`), sum(`prefix_hit_delta`),
  sum(`counter_resets`), max(`utilization_max`) FROM `worker_stats_1m` GROUP BY 1, 2;
