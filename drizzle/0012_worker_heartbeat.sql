CREATE TABLE "worker_heartbeat" (
	"short_name" text PRIMARY KEY NOT NULL,
	"runner" text NOT NULL,
	"leading_since" timestamp with time zone DEFAULT now() NOT NULL,
	"last_pass_at" timestamp with time zone,
	"resync_seconds" integer NOT NULL
);
