-- Hand-written: the retention job's one way to delete audit entries. The panel (web app and worker)
-- may run as a role that only reads and inserts audit entries (packages/db/src/panel-role.ts); this
-- function, owned by the role that runs migrations (SECURITY DEFINER), deletes the entries older
-- than a cutoff at least a day back, through the append-only trigger's retention door, and nothing else.
CREATE FUNCTION "audit_entry_prune"(cutoff timestamptz) RETURNS bigint LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, public AS $$
DECLARE n bigint;
BEGIN
  IF cutoff IS NULL OR cutoff > now() - interval '1 day' THEN
    RAISE EXCEPTION 'audit entries are kept at least a day: a cutoff of % is refused', cutoff USING ERRCODE = '22023';
  END IF;
  PERFORM set_config('levelrail.audit_retention', cutoff::text, true);
  DELETE FROM public.audit_entry WHERE "at" < cutoff;
  GET DIAGNOSTICS n = ROW_COUNT;
  PERFORM set_config('levelrail.audit_retention', '', true);
  RETURN n;
END;
$$;--> statement-breakpoint
REVOKE ALL ON FUNCTION "audit_entry_prune"(timestamptz) FROM PUBLIC;
