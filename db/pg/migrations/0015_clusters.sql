CREATE TABLE "clusters" (
	"id" integer PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"first_seen" bigint NOT NULL,
	CONSTRAINT "clusters_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "worker_events" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "worker_stats" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "kv_events" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "planner_decisions" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_acks" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "reasoning_spans" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "route_decisions" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "tools" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "requests" ADD COLUMN "cluster_id" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Events that name no cluster, and everything stored before clusters existed, belong to "default" (cluster_id 0).
INSERT INTO "clusters" ("id", "name", "first_seen") VALUES (0, 'default', 0);
