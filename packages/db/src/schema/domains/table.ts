import { sql } from "drizzle-orm";
import { index, integer, pgTable, text, timestamp, unique, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import type { DomainProofStatus } from "@levelrail/spec/domains";
import { organization } from "../orgs/table";

/**
 * The token an organization proves its domains with: a TXT record `_levelrail-challenge.<domain>`
 * holding it. Random, made once per organization (on its first domain that needs a proof).
 */
export const domainToken = pgTable("domain_token", {
  orgId: uuid("org_id").primaryKey().references(() => organization.id, { onDelete: "cascade" }),
  token: text("token").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * An organization's claim on a domain outside `*.localhost` and the installation's base domains,
 * and what the worker's checks of its TXT record found (observed state; the claim itself is the
 * domain in a service's `domains`). At most one organization holds a domain `verified`.
 */
export const domainProof = pgTable(
  "domain_proof",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    /** Lower case. */
    domain: text("domain").notNull(),
    status: text("status").$type<DomainProofStatus>().notNull().default("pending"),
    /** The last check: when, and what it found (`null`: never checked). */
    lastCheckedAt: timestamp("last_checked_at", { withTimezone: true }),
    lastResult: text("last_result"),
    /** The last time the record held the token: a verified domain keeps routing for the grace period after it. */
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
    verifiedAt: timestamp("verified_at", { withTimezone: true }),
    /** Checks in a row that did not find the token (the backoff). */
    misses: integer("misses").notNull().default(0),
    nextCheckAt: timestamp("next_check_at", { withTimezone: true }).notNull().defaultNow(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    unique("domain_proof_org_domain").on(t.orgId, t.domain),
    uniqueIndex("domain_proof_verified_domain").on(t.domain).where(sql`${t.status} = 'verified'`),
    index("domain_proof_next_check").on(t.nextCheckAt),
  ],
);
