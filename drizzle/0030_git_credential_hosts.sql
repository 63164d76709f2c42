ALTER TABLE "git_credential" ADD COLUMN "hosts" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
-- Credentials made before hosts existed keep reaching exactly the hosts their sources use today (the
-- repository URL's host, and the provider API's host for an API token, with the port when the URL names
-- one); one no source uses keeps none: a token is then sent nowhere until it is made again with hosts.
UPDATE "git_credential" AS c SET "hosts" = coalesce((
  SELECT jsonb_agg(DISTINCT regexp_replace(lower(u.h), '\.(:[0-9]+)?$', '\1'))
  FROM (
    SELECT coalesce(
      substring(s."url" from '^[A-Za-z]+://(?:[^@/]*@)?(\[[^]/]+\](?::[0-9]+)?|[^/:]+(?::[0-9]+)?)'),
      substring(s."url" from '^[^@/:]+@([^:/]+):')
    ) AS h
    FROM "git_source" AS s WHERE s."credential_id" = c."id"
    UNION
    SELECT substring(s."api_url" from '^[A-Za-z]+://(?:[^@/]*@)?(\[[^]/]+\](?::[0-9]+)?|[^/:]+(?::[0-9]+)?)') AS h
    FROM "git_source" AS s WHERE s."api_credential_id" = c."id"
  ) AS u
  WHERE u.h IS NOT NULL
), '[]'::jsonb);
