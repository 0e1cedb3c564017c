-- kv_events known by the event id's 48-bit hash with ts, as on SQLite (migration 0020 there); requests gain local_refs.
ALTER TABLE "kv_events" ADD COLUMN "id_key" bigint NOT NULL;--> statement-breakpoint
ALTER TABLE "kv_events" DROP CONSTRAINT "kv_events_id_ts_pk";--> statement-breakpoint
ALTER TABLE "kv_events" DROP COLUMN "id";--> statement-breakpoint
ALTER TABLE "kv_events" ADD CONSTRAINT "kv_events_ts_id_key_pk" PRIMARY KEY("ts","id_key");--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "local_refs" "bytea";
