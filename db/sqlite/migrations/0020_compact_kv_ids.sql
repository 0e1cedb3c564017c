-- KV events: the text event id and its unique index give way to a 48-bit hash of the id (id_key), unique with ts in
-- the index that serves time ranges (kv_events_ts goes). Rows keep their rowids (the attribution cursor and KV list
-- references name them); rows stored before keep their id text and a null id_key. Requests: local_refs (first turns
-- that repeat another session's local hashes at an offset).
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_kv_events` (
	`id` text,
	`id_key` integer,
	`ts` integer NOT NULL,
	`op` text NOT NULL,
	`worker_id` text NOT NULL,
	`block_count` integer NOT NULL,
	`block_hashes` blob,
	`parent_hash` blob,
	`local_hashes` blob,
	`retention_class` text,
	`session_id` text,
	`reason` text,
	`source` text,
	`storage_tier` text,
	`onboarded_from` text,
	`block_refs` blob
);
--> statement-breakpoint
INSERT INTO `__new_kv_events`("rowid", "id", "id_key", "ts", "op", "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", "session_id", "reason", "source", "storage_tier", "onboarded_from", "block_refs")
  SELECT "rowid", "id", NULL, "ts", "op", "worker_id", "block_count", "block_hashes", "parent_hash", "local_hashes", "retention_class", "session_id", "reason", "source", "storage_tier", "onboarded_from", "block_refs" FROM `kv_events` ORDER BY "rowid";--> statement-breakpoint
DROP TABLE `kv_events`;--> statement-breakpoint
ALTER TABLE `__new_kv_events` RENAME TO `kv_events`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `kv_events_ts_key` ON `kv_events` (`ts`,`id_key`);--> statement-breakpoint
CREATE INDEX `kv_events_worker_ts` ON `kv_events` (`worker_id`,`ts`);--> statement-breakpoint
ALTER TABLE `requests` ADD `local_refs` blob;