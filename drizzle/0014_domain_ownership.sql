CREATE TABLE "domain_proof" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"last_checked_at" timestamp with time zone,
	"last_result" text,
	"last_seen_at" timestamp with time zone,
	"verified_at" timestamp with time zone,
	"misses" integer DEFAULT 0 NOT NULL,
	"next_check_at" timestamp with time zone DEFAULT now() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "domain_proof_org_domain" UNIQUE("org_id","domain")
);
--> statement-breakpoint
CREATE TABLE "domain_token" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"token" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "domain_proof" ADD CONSTRAINT "domain_proof_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "domain_token" ADD CONSTRAINT "domain_token_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "domain_proof_verified_domain" ON "domain_proof" USING btree ("domain") WHERE "domain_proof"."status" = 'verified';--> statement-breakpoint
CREATE INDEX "domain_proof_next_check" ON "domain_proof" USING btree ("next_check_at");