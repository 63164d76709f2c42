ALTER TABLE "service" ADD COLUMN "replicas" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "service" ADD COLUMN "placement" jsonb DEFAULT '{}'::jsonb NOT NULL;