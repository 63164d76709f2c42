ALTER TABLE "org_quota" ADD COLUMN "channels" integer;--> statement-breakpoint
-- Private targets are the installation's setting (LEVELRAIL_ALLOW_PRIVATE_TARGETS), no longer a channel's: the field goes from every webhook's config.
UPDATE "notification_channel" SET "config" = "config" - 'allowPrivate' WHERE "config" ? 'allowPrivate';
