-- Domains that services had before ownership proofs existed keep routing through the upgrade: each
-- gets a proof last seen now (the oldest service's organization, as ingress routed it), so it stops
-- routing only when its TXT record is still missing at the end of the grace period (72 h).
INSERT INTO "domain_proof" ("org_id", "domain", "status", "last_seen_at", "verified_at", "last_checked_at", "last_result", "next_check_at")
SELECT DISTINCT ON (lower(d)) s."org_id", lower(d), 'verified', now(), now(), now(), 'routed before ownership proofs existed: create the TXT record to keep it routing', now()
FROM "service" s, jsonb_array_elements_text(s."domains") AS d
WHERE lower(d) <> 'localhost' AND lower(d) NOT LIKE '%.localhost'
ORDER BY lower(d), s."created_at", s."id"
ON CONFLICT DO NOTHING;
