CREATE TABLE "node_change" (
	"node_id" text PRIMARY KEY NOT NULL,
	"availability" text,
	"labels" jsonb,
	"generation" integer DEFAULT 1 NOT NULL,
	"applied_generation" integer DEFAULT 0 NOT NULL,
	"error" text,
	"requested_at" timestamp with time zone DEFAULT now() NOT NULL,
	"requested_by" text,
	"applied_at" timestamp with time zone
);
