-- Environments become namespaces: an app belongs to one environment, and app and service names
-- are unique within it. Existing data moves without changing any container's effective environment:
-- services keep their environment; an app whose services span environments is split into one app per
-- environment (the copies get new ids, so new networks, reached through a normal cutover); an app
-- without services lands in its organization's default/production (created where missing).
ALTER TABLE "app" DROP CONSTRAINT "app_org_name";--> statement-breakpoint
ALTER TABLE "service" DROP CONSTRAINT "service_name_unique";--> statement-breakpoint
ALTER TABLE "app" ADD COLUMN "environment_id" uuid;--> statement-breakpoint
ALTER TABLE "release" ADD COLUMN "promoted_from" jsonb;--> statement-breakpoint
-- An app keeps the id in the environment most of its services are in (the oldest on a tie).
WITH per_env AS (
  SELECT "app_id", "environment_id", count(*) AS n, min("created_at") AS first
  FROM "service" GROUP BY "app_id", "environment_id"
), keep AS (
  SELECT DISTINCT ON ("app_id") "app_id", "environment_id" FROM per_env ORDER BY "app_id", n DESC, first ASC
)
UPDATE "app" SET "environment_id" = keep."environment_id" FROM keep WHERE "app"."id" = keep."app_id";--> statement-breakpoint
-- One new app for each other environment its services are in.
CREATE TEMPORARY TABLE "app_split" AS
  SELECT DISTINCT s."app_id" AS old_id, s."environment_id", gen_random_uuid() AS new_id
  FROM "service" s JOIN "app" a ON a."id" = s."app_id"
  WHERE s."environment_id" <> a."environment_id";--> statement-breakpoint
INSERT INTO "app" ("id", "org_id", "name", "created_at", "environment_id")
  SELECT sp.new_id, a."org_id", a."name", a."created_at", sp."environment_id"
  FROM "app_split" sp JOIN "app" a ON a."id" = sp.old_id;--> statement-breakpoint
UPDATE "service" s SET "app_id" = sp.new_id
  FROM "app_split" sp WHERE s."app_id" = sp.old_id AND s."environment_id" = sp."environment_id";--> statement-breakpoint
DROP TABLE "app_split";--> statement-breakpoint
-- Apps without services: their organization's default/production, made where missing.
INSERT INTO "project" ("org_id", "name")
  SELECT DISTINCT "org_id", 'default' FROM "app" WHERE "environment_id" IS NULL
  ON CONFLICT ON CONSTRAINT "project_org_name" DO NOTHING;--> statement-breakpoint
INSERT INTO "environment" ("org_id", "project_id", "name")
  SELECT p."org_id", p."id", 'production' FROM "project" p
  WHERE p."name" = 'default' AND p."org_id" IN (SELECT "org_id" FROM "app" WHERE "environment_id" IS NULL)
  ON CONFLICT ON CONSTRAINT "environment_project_name" DO NOTHING;--> statement-breakpoint
UPDATE "app" a SET "environment_id" = e."id"
  FROM "environment" e JOIN "project" p ON p."id" = e."project_id"
  WHERE a."environment_id" IS NULL AND p."org_id" = a."org_id" AND p."name" = 'default' AND e."name" = 'production';--> statement-breakpoint
ALTER TABLE "app" ALTER COLUMN "environment_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "app" ADD CONSTRAINT "app_environment_id_environment_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environment"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "app" ADD CONSTRAINT "app_environment_name" UNIQUE("environment_id","name");--> statement-breakpoint
ALTER TABLE "app" ADD CONSTRAINT "app_id_environment" UNIQUE("id","environment_id");--> statement-breakpoint
ALTER TABLE "service" ADD CONSTRAINT "service_app_environment" FOREIGN KEY ("app_id","environment_id") REFERENCES "public"."app"("id","environment_id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "service" ADD CONSTRAINT "service_environment_name" UNIQUE("environment_id","name");
