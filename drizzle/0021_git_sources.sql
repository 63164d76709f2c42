CREATE TABLE "build" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"commit" text,
	"ref" text NOT NULL,
	"trigger" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"step" text,
	"message" text DEFAULT '' NOT NULL,
	"deploy" boolean DEFAULT true NOT NULL,
	"image_id" text,
	"image" text,
	"runner" text,
	"cancel_requested_at" timestamp with time zone,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "build_log" (
	"build_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"line" text NOT NULL,
	CONSTRAINT "build_log_build_id_seq_pk" PRIMARY KEY("build_id","seq")
);
--> statement-breakpoint
CREATE TABLE "git_credential" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"public_key" text,
	"username" text,
	"sealed" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_credential_org_name" UNIQUE("org_id","name")
);
--> statement-breakpoint
CREATE TABLE "git_delivery" (
	"source_id" uuid NOT NULL,
	"delivery_id" text NOT NULL,
	"received_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_delivery_source_id_delivery_id_pk" PRIMARY KEY("source_id","delivery_id")
);
--> statement-breakpoint
CREATE TABLE "git_source" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"service_id" uuid NOT NULL,
	"url" text NOT NULL,
	"ref" text NOT NULL,
	"path" text DEFAULT '.' NOT NULL,
	"dockerfile" text DEFAULT 'Dockerfile' NOT NULL,
	"credential_id" uuid,
	"build_args" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"target" text,
	"webhook_secret_sealed" text NOT NULL,
	"poll_interval_seconds" integer,
	"last_polled_at" timestamp with time zone,
	"last_seen_commit" text,
	"last_error" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "git_source_service" UNIQUE("service_id")
);
--> statement-breakpoint
CREATE TABLE "preview" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"project_id" uuid NOT NULL,
	"repo" text NOT NULL,
	"number" integer NOT NULL,
	"environment_id" uuid,
	"head_ref" text NOT NULL,
	"head_commit" text NOT NULL,
	"state" text DEFAULT 'open' NOT NULL,
	"status_url" text,
	"message" text DEFAULT '' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"closed_at" timestamp with time zone,
	CONSTRAINT "preview_project_repo_number" UNIQUE("project_id","repo","number")
);
--> statement-breakpoint
CREATE TABLE "preview_settings" (
	"project_id" uuid PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"base_environment_id" uuid NOT NULL,
	"domain" text NOT NULL,
	"max" integer DEFAULT 5 NOT NULL,
	"ttl_hours" integer DEFAULT 168 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "build" ADD CONSTRAINT "build_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "build" ADD CONSTRAINT "build_service_id_service_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."service"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "build_log" ADD CONSTRAINT "build_log_build_id_build_id_fk" FOREIGN KEY ("build_id") REFERENCES "public"."build"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_credential" ADD CONSTRAINT "git_credential_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_delivery" ADD CONSTRAINT "git_delivery_source_id_git_source_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."git_source"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_source" ADD CONSTRAINT "git_source_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_source" ADD CONSTRAINT "git_source_service_id_service_id_fk" FOREIGN KEY ("service_id") REFERENCES "public"."service"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "git_source" ADD CONSTRAINT "git_source_credential_id_git_credential_id_fk" FOREIGN KEY ("credential_id") REFERENCES "public"."git_credential"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview" ADD CONSTRAINT "preview_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview" ADD CONSTRAINT "preview_project_id_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."project"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview" ADD CONSTRAINT "preview_environment_id_environment_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environment"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_settings" ADD CONSTRAINT "preview_settings_project_id_project_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."project"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_settings" ADD CONSTRAINT "preview_settings_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "preview_settings" ADD CONSTRAINT "preview_settings_base_environment_id_environment_id_fk" FOREIGN KEY ("base_environment_id") REFERENCES "public"."environment"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "build_service_created" ON "build" USING btree ("service_id","created_at");--> statement-breakpoint
CREATE INDEX "build_org_status" ON "build" USING btree ("org_id","status");--> statement-breakpoint
CREATE INDEX "git_source_org" ON "git_source" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "preview_org" ON "preview" USING btree ("org_id");