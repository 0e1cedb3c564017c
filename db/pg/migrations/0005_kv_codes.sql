-- kv_events: op and reason stored as SQLite stores them, small integer codes (db/kv-codes.ts), with their text as
-- generated columns of the old names (readers unchanged); existing rows keep their values. session_id goes, as on
-- SQLite: a kv.stored event's session is validated, never read.
ALTER TABLE "kv_events" ADD COLUMN "op_code" integer;--> statement-breakpoint
ALTER TABLE "kv_events" ADD COLUMN "reason_code" integer;--> statement-breakpoint
UPDATE "kv_events" SET "op_code" = CASE "op" WHEN 'removed' THEN 0 WHEN 'stored' THEN 1 WHEN 'cleared' THEN 2 END,
  "reason_code" = CASE "reason" WHEN 'capacity' THEN 0 WHEN 'ttl' THEN 1 WHEN 'agent_end' THEN 2 WHEN 'session_end' THEN 3 WHEN 'cleared' THEN 4 WHEN 'offloaded' THEN 5 WHEN 'unknown' THEN 6 END;--> statement-breakpoint
ALTER TABLE "kv_events" ALTER COLUMN "op_code" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "kv_events" DROP COLUMN "op";--> statement-breakpoint
ALTER TABLE "kv_events" ADD COLUMN "op" text GENERATED ALWAYS AS (CASE op_code WHEN 0 THEN 'removed' WHEN 1 THEN 'stored' WHEN 2 THEN 'cleared' END) STORED;--> statement-breakpoint
ALTER TABLE "kv_events" DROP COLUMN "reason";--> statement-breakpoint
ALTER TABLE "kv_events" ADD COLUMN "reason" text GENERATED ALWAYS AS (CASE reason_code WHEN 0 THEN 'capacity' WHEN 1 THEN 'ttl' WHEN 2 THEN 'agent_end' WHEN 3 THEN 'session_end' WHEN 4 THEN 'cleared' WHEN 5 THEN 'offloaded' WHEN 6 THEN 'unknown' END) STORED;
;--> statement-breakpoint
ALTER TABLE "kv_events" DROP COLUMN "session_id";