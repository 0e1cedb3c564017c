CREATE TABLE "worker_chart_30s" (
	"chunk" bigint NOT NULL,
	"worker_id" text NOT NULL,
	"t" "bytea" NOT NULL,
	"util" "bytea" NOT NULL,
	"hit" "bytea" NOT NULL,
	CONSTRAINT "worker_chart_30s_chunk_worker_id_pk" PRIMARY KEY("chunk","worker_id")
);
--> statement-breakpoint
CREATE TABLE "worker_chart_seal" (
	"resolution" text PRIMARY KEY NOT NULL,
	"sealed_until" bigint NOT NULL
);
