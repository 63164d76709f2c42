CREATE INDEX "app_org" ON "app" USING btree ("org_id");--> statement-breakpoint
CREATE INDEX "service_org" ON "service" USING btree ("org_id");