ALTER TABLE "preview" ADD COLUMN "cloned_environment_id" uuid;--> statement-breakpoint
ALTER TABLE "preview" ADD CONSTRAINT "preview_cloned_environment_id_environment_id_fk" FOREIGN KEY ("cloned_environment_id") REFERENCES "public"."environment"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- A preview cloned without secrets before this column: its environment is its own clone's.
UPDATE "preview" SET "cloned_environment_id" = "environment_id" WHERE "withheld" IS NOT NULL AND "environment_id" IS NOT NULL;
