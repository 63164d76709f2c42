CREATE TABLE "installation_admin" (
	"user_id" text PRIMARY KEY NOT NULL,
	"granted_at" timestamp with time zone DEFAULT now() NOT NULL,
	"granted_by" text
);
--> statement-breakpoint
ALTER TABLE "installation_admin" ADD CONSTRAINT "installation_admin_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- By hand: an installation from before installation administrators keeps one, its first operator (the earliest user).
INSERT INTO "installation_admin" ("user_id", "granted_by") SELECT "id", 'the first operator' FROM "user" ORDER BY "created_at", "id" LIMIT 1;
