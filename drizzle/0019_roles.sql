ALTER TABLE "membership" ALTER COLUMN "role" SET DEFAULT 'developer';--> statement-breakpoint
-- Hand-added: the old `member` role becomes `developer` (CONTRACT §9) before the role check holds.
UPDATE "membership" SET "role" = 'developer' WHERE "role" = 'member';--> statement-breakpoint
ALTER TABLE "api_token" ADD COLUMN "read_only" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "membership" ADD COLUMN "project_id" uuid;--> statement-breakpoint
ALTER TABLE "membership" ADD CONSTRAINT "membership_project_id_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."project"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "membership_user" ON "membership" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "membership" ADD CONSTRAINT "membership_role" CHECK ("membership"."role" in ('owner', 'admin', 'developer', 'viewer'));--> statement-breakpoint
ALTER TABLE "membership" ADD CONSTRAINT "membership_project_role" CHECK ("membership"."project_id" is null or "membership"."role" <> 'owner');