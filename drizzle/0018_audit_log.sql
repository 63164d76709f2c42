CREATE TABLE "audit_entry" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "audit_entry_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"org_id" uuid,
	"at" timestamp with time zone DEFAULT now() NOT NULL,
	"actor_type" text NOT NULL,
	"actor_id" text,
	"actor_name" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"target_name" text,
	"fields" text[] DEFAULT '{}' NOT NULL,
	"source_ip" text
);
--> statement-breakpoint
CREATE INDEX "audit_entry_org_id" ON "audit_entry" USING btree ("org_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_entry_org_action" ON "audit_entry" USING btree ("org_id","action","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_entry_org_actor" ON "audit_entry" USING btree ("org_id","actor_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_entry_org_target" ON "audit_entry" USING btree ("org_id","target_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "audit_entry_at" ON "audit_entry" USING btree ("at");--> statement-breakpoint
-- Hand-written: the audit log is append-only. UPDATE and TRUNCATE are always refused; DELETE only by
-- the retention job, which sets `levelrail.audit_retention` to its cutoff time for its own transaction
-- (set_config(..., true)) and may then delete only entries older than that cutoff.
CREATE FUNCTION "audit_entry_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE cutoff text := current_setting('levelrail.audit_retention', true);
BEGIN
  IF TG_OP = 'DELETE' AND cutoff IS NOT NULL AND cutoff <> '' AND OLD."at" < cutoff::timestamptz THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_entry is append-only: % refused', TG_OP USING ERRCODE = '42501';
END;
$$;--> statement-breakpoint
CREATE TRIGGER "audit_entry_append_only" BEFORE UPDATE OR DELETE ON "audit_entry" FOR EACH ROW EXECUTE FUNCTION "audit_entry_append_only"();--> statement-breakpoint
CREATE TRIGGER "audit_entry_no_truncate" BEFORE TRUNCATE ON "audit_entry" FOR EACH STATEMENT EXECUTE FUNCTION "audit_entry_append_only"();
