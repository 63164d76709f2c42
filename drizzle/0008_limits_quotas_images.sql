CREATE TABLE "pulled_image" (
	"image_id" text NOT NULL,
	"ref" text NOT NULL,
	"pulled_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "pulled_image_image_id_ref_pk" PRIMARY KEY("image_id","ref")
);
--> statement-breakpoint
CREATE TABLE "org_quota" (
	"org_id" uuid PRIMARY KEY NOT NULL,
	"apps" integer,
	"services" integer,
	"databases" integer,
	"domains" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "service" ADD COLUMN "resources" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "org_quota" ADD CONSTRAINT "org_quota_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;