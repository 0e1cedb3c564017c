CREATE TABLE "causes_1m" (
	"minute" bigint PRIMARY KEY NOT NULL,
	"cold" bigint NOT NULL,
	"diverged" bigint NOT NULL,
	"evicted" bigint NOT NULL,
	"routed_away" bigint NOT NULL,
	"unknown" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "request_causes" (
	"rid" bigint PRIMARY KEY NOT NULL,
	"arrived_at" bigint NOT NULL,
	"recomputed" integer NOT NULL,
	"cold" integer NOT NULL,
	"diverged" integer NOT NULL,
	"evicted" integer NOT NULL,
	"routed_away" integer NOT NULL,
	"unknown" integer NOT NULL,
	"evicted_reason" text,
	"retention_version" integer,
	"held_tokens" bigint,
	"wait_ms" bigint,
	"survived_tokens" bigint
);
--> statement-breakpoint
CREATE TABLE "session_summaries" (
	"session_id" text PRIMARY KEY NOT NULL,
	"harness" text,
	"session_type" text,
	"first_at" bigint NOT NULL,
	"last_at" bigint NOT NULL,
	"turns" integer NOT NULL,
	"agents" integer NOT NULL,
	"subagents" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"cached_share" double precision,
	"cold" bigint NOT NULL,
	"diverged" bigint NOT NULL,
	"evicted" bigint NOT NULL,
	"routed_away" bigint NOT NULL,
	"unknown" bigint NOT NULL,
	"ttft_p50" bigint,
	"tool_calls" integer NOT NULL,
	"tool_wait_ms" bigint NOT NULL,
	"errors" integer NOT NULL,
	"duration" bigint NOT NULL,
	"local0" text,
	"local1" text
);
--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "rid" bigint NOT NULL GENERATED ALWAYS AS IDENTITY (sequence name "requests_rid_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1);--> statement-breakpoint
CREATE INDEX "request_causes_arrived" ON "request_causes" USING btree ("arrived_at");--> statement-breakpoint
CREATE INDEX "session_summaries_last" ON "session_summaries" USING btree ("last_at");--> statement-breakpoint
CREATE UNIQUE INDEX "requests_rid" ON "requests" USING btree ("rid");