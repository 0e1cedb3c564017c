CREATE TABLE "request_ttft_scope_1m" (
	"minute" bigint NOT NULL,
	"cluster_id" integer NOT NULL,
	"model_id" integer NOT NULL,
	"bucket" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "request_ttft_scope_1m_minute_cluster_id_model_id_bucket_pk" PRIMARY KEY("minute","cluster_id","model_id","bucket")
);
--> statement-breakpoint
CREATE TABLE "requests_scope_1m" (
	"minute" bigint NOT NULL,
	"cluster_id" integer NOT NULL,
	"model_id" integer NOT NULL,
	"requests" integer NOT NULL,
	"input_tokens" bigint NOT NULL,
	"cached_tokens" bigint NOT NULL,
	"output_tokens" bigint NOT NULL,
	"preemptions" integer NOT NULL,
	CONSTRAINT "requests_scope_1m_minute_cluster_id_model_id_pk" PRIMARY KEY("minute","cluster_id","model_id")
);
