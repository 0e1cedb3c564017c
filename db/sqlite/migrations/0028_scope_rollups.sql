CREATE TABLE `request_ttft_scope_1m` (
	`minute` integer NOT NULL,
	`cluster_id` integer NOT NULL,
	`model_id` integer NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`minute`, `cluster_id`, `model_id`, `bucket`)
);
--> statement-breakpoint
CREATE TABLE `requests_scope_1m` (
	`minute` integer NOT NULL,
	`cluster_id` integer NOT NULL,
	`model_id` integer NOT NULL,
	`requests` integer NOT NULL,
	`input_tokens` integer NOT NULL,
	`cached_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`preemptions` integer NOT NULL,
	PRIMARY KEY(`minute`, `cluster_id`, `model_id`)
);
