CREATE TABLE "sso_email_domain" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sso_email_domain_org_domain" UNIQUE("org_id","domain")
);
--> statement-breakpoint
ALTER TABLE "api_token" ADD COLUMN "sso_org_id" uuid;--> statement-breakpoint
ALTER TABLE "sso_email_domain" ADD CONSTRAINT "sso_email_domain_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;