CREATE TABLE "sso_connection" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"issuer" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_sealed" text NOT NULL,
	"domain" text NOT NULL,
	"default_role" text DEFAULT 'viewer' NOT NULL,
	"groups_claim" text,
	"group_roles" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"require_sso" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_connection_domain_unique" UNIQUE("domain")
);
--> statement-breakpoint
ALTER TABLE "session" ADD COLUMN "sso_org_id" uuid;--> statement-breakpoint
ALTER TABLE "sso_connection" ADD CONSTRAINT "sso_connection_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;