CREATE TABLE "audit_policy" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"retention_days" integer NOT NULL,
	CONSTRAINT "audit_policy_one_row" CHECK ("audit_policy"."id"),
	CONSTRAINT "audit_policy_retention_days" CHECK ("audit_policy"."retention_days" between 1 and 36500)
);
--> statement-breakpoint
-- Hand-written from here (issue 42, finding 14 follow-up): the retention the prune function applies
-- is held here, where the panel's role cannot change it (it has no privilege on this table:
-- packages/db/src/panel-role.ts), and not taken from its caller. The migration step, as the owner,
-- writes the configured LEVELRAIL_AUDIT_RETENTION_DAYS at every migrate (packages/db/src/migrate.ts);
-- until then, the default's 365 days.
INSERT INTO "audit_policy" ("id", "retention_days") VALUES (true, 365) ON CONFLICT ("id") DO NOTHING;--> statement-breakpoint
REVOKE ALL ON TABLE "audit_policy" FROM PUBLIC;--> statement-breakpoint
-- The old function took its cutoff from the caller (any cutoff a day back or more): gone, and with it
-- the panel role's EXECUTE on it.
DROP FUNCTION "audit_entry_prune"(timestamptz);--> statement-breakpoint
-- The retention job's one way to delete audit entries, owned by the role that runs migrations
-- (SECURITY DEFINER): deletes the entries older than now() minus audit_policy's retention_days,
-- through the append-only trigger's retention door (0018), and nothing else. It takes no cutoff.
CREATE FUNCTION "audit_entry_prune"() RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE
  days integer;
  cutoff timestamptz;
  n bigint;
BEGIN
  SELECT retention_days INTO days FROM public.audit_policy WHERE id;
  IF days IS NULL OR days < 1 THEN
    RAISE EXCEPTION 'audit_policy holds no retention: nothing is deleted' USING ERRCODE = '55000';
  END IF;
  cutoff := now() - make_interval(days => days);
  PERFORM set_config('levelrail.audit_retention', cutoff::text, true);
  DELETE FROM public.audit_entry WHERE "at" < cutoff;
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('levelrail.audit_retention', '', true);
  RETURN n;
END;
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION "audit_entry_prune"() FROM PUBLIC;
