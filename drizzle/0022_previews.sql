ALTER TABLE "git_source" ADD COLUMN "api_provider" text;--> statement-breakpoint
ALTER TABLE "git_source" ADD COLUMN "api_url" text;--> statement-breakpoint
ALTER TABLE "git_source" ADD COLUMN "api_credential_id" uuid;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "built_commit" text;--> statement-breakpoint
ALTER TABLE "preview" ADD COLUMN "reported" text;--> statement-breakpoint
ALTER TABLE "git_source" ADD CONSTRAINT "git_source_api_credential_id_git_credential_id_fk" FOREIGN KEY ("api_credential_id") REFERENCES "public"."git_credential"("id") ON DELETE restrict ON UPDATE no action;