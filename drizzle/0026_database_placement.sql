ALTER TABLE "managed_database" ADD COLUMN "placement" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "managed_database" ADD COLUMN "node_id" text;