-- Policies belong to a cluster (see the SQLite migration of the same name); what was stored belongs to "default".
ALTER TABLE "control_audit" ADD COLUMN "cluster" text;--> statement-breakpoint
ALTER TABLE "control_targets" ADD COLUMN "cluster" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_guards" ADD COLUMN "cluster" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_versions" ADD COLUMN "cluster" text DEFAULT 'default' NOT NULL;--> statement-breakpoint
ALTER TABLE "policy_guards" DROP CONSTRAINT "policy_guards_kind_version_pk";--> statement-breakpoint
ALTER TABLE "policy_versions" DROP CONSTRAINT "policy_versions_kind_version_pk";--> statement-breakpoint
ALTER TABLE "policy_guards" ADD CONSTRAINT "policy_guards_cluster_kind_version_pk" PRIMARY KEY("cluster","kind","version");--> statement-breakpoint
ALTER TABLE "policy_versions" ADD CONSTRAINT "policy_versions_cluster_kind_version_pk" PRIMARY KEY("cluster","kind","version");
