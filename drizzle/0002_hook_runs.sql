CREATE TABLE "hook_run" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"release_id" uuid NOT NULL,
	"phase" text NOT NULL,
	"command" jsonb NOT NULL,
	"attempt" text NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"exit_code" integer,
	"outcome" text DEFAULT 'running' NOT NULL,
	"output" text DEFAULT '' NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	CONSTRAINT "hook_run_attempt" UNIQUE("release_id","phase","attempt")
);
--> statement-breakpoint
ALTER TABLE "service_status" ADD COLUMN "step" text;--> statement-breakpoint
ALTER TABLE "hook_run" ADD CONSTRAINT "hook_run_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hook_run" ADD CONSTRAINT "hook_run_service_id_service_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."service"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "hook_run" ADD CONSTRAINT "hook_run_release_id_release_id_fk" FOREIGN KEY ("release_id") REFERENCES "public"."release"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "hook_run_service_started" ON "hook_run" USING btree ("service_id","started_at");