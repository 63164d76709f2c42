ALTER TABLE "git_delivery" ADD COLUMN "before" text;--> statement-breakpoint
ALTER TABLE "git_delivery" ADD COLUMN "after" text;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "fork" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "outsider" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "approved_commit" text;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "approved_by" text;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "withheld" jsonb;