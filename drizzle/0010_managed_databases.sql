CREATE TABLE "backup" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"database_id" uuid NOT NULL,
	"target_id" uuid,
	"status" text NOT NULL,
	"step" text,
	"message" text DEFAULT '' NOT NULL,
	"scheduled_for" timestamp with time zone,
	"runner" text,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"size_bytes" bigint,
	"sha256" text,
	"object_key" text,
	"inventory" jsonb,
	"verification" jsonb,
	"verify_requested_at" timestamp with time zone,
	"pruned_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "database_restore" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"database_id" uuid NOT NULL,
	"backup_id" uuid,
	"mode" text NOT NULL,
	"status" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"volume" text NOT NULL,
	"runner" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "database_status" (
	"database_id" uuid PRIMARY KEY NOT NULL,
	"phase" text NOT NULL,
	"message" text DEFAULT '' NOT NULL,
	"container" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "database_teardown" (
	"database_id" uuid PRIMARY KEY NOT NULL,
	"drop_data" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "database_volume" (
	"name" text PRIMARY KEY NOT NULL,
	"org_id" uuid NOT NULL,
	"database_id" uuid NOT NULL,
	"retired_at" timestamp with time zone DEFAULT now() NOT NULL,
	"remove_requested_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "managed_database" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"org_id" uuid NOT NULL,
	"environment_id" uuid NOT NULL,
	"name" text NOT NULL,
	"engine" text NOT NULL,
	"version" text NOT NULL,
	"image" text NOT NULL,
	"username" text NOT NULL,
	"password_sealed" text NOT NULL,
	"volume" text NOT NULL,
	"backup_schedule" jsonb,
	"schedule_target_id" uuid,
	"schedule_since" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "managed_database_environment_name" UNIQUE("environment_id","name")
);
--> statement-breakpoint
ALTER TABLE "backup" ADD CONSTRAINT "backup_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backup" ADD CONSTRAINT "backup_database_id_managed_database_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."managed_database"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "backup" ADD CONSTRAINT "backup_target_id_backup_target_id_fk" FOREIGN KEY ("target_id") REFERENCES "public"."backup_target"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_restore" ADD CONSTRAINT "database_restore_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_restore" ADD CONSTRAINT "database_restore_database_id_managed_database_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."managed_database"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_restore" ADD CONSTRAINT "database_restore_backup_id_backup_id_fk" FOREIGN KEY ("backup_id") REFERENCES "public"."backup"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_status" ADD CONSTRAINT "database_status_database_id_managed_database_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."managed_database"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_volume" ADD CONSTRAINT "database_volume_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "database_volume" ADD CONSTRAINT "database_volume_database_id_managed_database_id_fk" FOREIGN KEY ("database_id") REFERENCES "public"."managed_database"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "managed_database" ADD CONSTRAINT "managed_database_org_id_organization_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organization"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "managed_database" ADD CONSTRAINT "managed_database_environment_id_environment_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environment"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "managed_database" ADD CONSTRAINT "managed_database_schedule_target_id_backup_target_id_fk" FOREIGN KEY ("schedule_target_id") REFERENCES "public"."backup_target"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "backup_database_created" ON "backup" USING btree ("database_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "backup_database_scheduled" ON "backup" USING btree ("database_id","scheduled_for") WHERE "backup"."scheduled_for" is not null;--> statement-breakpoint
CREATE INDEX "database_restore_database" ON "database_restore" USING btree ("database_id","created_at");--> statement-breakpoint
CREATE INDEX "managed_database_org" ON "managed_database" USING btree ("org_id");