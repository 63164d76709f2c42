ALTER TABLE "service_status" ADD COLUMN "crash_looping" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "service_status" ADD COLUMN "restarts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "service_status" ADD COLUMN "last_exit" jsonb;