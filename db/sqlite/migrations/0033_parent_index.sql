-- The policy preview finds a chain's later stores by their parent hash: an index of the KV events that have one (about
-- half) replaces the (worker, ts) index of every event, which only that lookup used.
DROP INDEX `kv_events_worker_ts`;--> statement-breakpoint
CREATE INDEX `kv_events_parent` ON `kv_events` (`parent_hash`) WHERE parent_hash IS NOT NULL;