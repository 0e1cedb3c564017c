CREATE TABLE "alert_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"ts" bigint NOT NULL,
	"rule" text NOT NULL,
	"key" text NOT NULL,
	"kind" text NOT NULL,
	"labels" text DEFAULT '{}' NOT NULL,
	"value" double precision,
	"summary" text NOT NULL,
	"link" text NOT NULL,
	"severity" text NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_receivers" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"url" text NOT NULL,
	"secret" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_states" (
	"rule" text NOT NULL,
	"key" text NOT NULL,
	"labels" text DEFAULT '{}' NOT NULL,
	"state" text NOT NULL,
	"active_at" bigint NOT NULL,
	"fired_at" bigint,
	"value" double precision,
	"summary" text NOT NULL,
	"link" text NOT NULL,
	"severity" text NOT NULL,
	"sent_at" bigint,
	CONSTRAINT "alert_states_rule_key_pk" PRIMARY KEY("rule","key")
);
--> statement-breakpoint
CREATE INDEX "alert_events_ts" ON "alert_events" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "alert_events_rule_ts" ON "alert_events" USING btree ("rule","ts");