CREATE TABLE "attr_blocks" (
	"hash" bigint PRIMARY KEY NOT NULL,
	"intervals" "bytea",
	"first_at" bigint
);
--> statement-breakpoint
CREATE TABLE "attr_clears" (
	"worker" integer NOT NULL,
	"at" bigint NOT NULL,
	CONSTRAINT "attr_clears_worker_at_pk" PRIMARY KEY("worker","at")
);
--> statement-breakpoint
CREATE TABLE "attr_local" (
	"hash" bigint PRIMARY KEY NOT NULL,
	"first_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "attr_names" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	CONSTRAINT "attr_names_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "attr_state" (
	"key" text PRIMARY KEY NOT NULL,
	"value" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "kv_events" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "seq" bigserial NOT NULL;--> statement-breakpoint
CREATE INDEX "attr_local_first" ON "attr_local" USING btree ("first_at");--> statement-breakpoint
CREATE INDEX "kv_events_seq_idx" ON "kv_events" USING btree ("seq");--> statement-breakpoint
CREATE INDEX "tools_seq_idx" ON "tools" USING btree ("seq");