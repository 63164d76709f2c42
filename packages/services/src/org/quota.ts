import { count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@levelrail/db/client";
import { orgQuota, organization } from "@levelrail/db/schema/orgs";
import { app, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { DEFAULT_QUOTAS, QUOTA_KINDS, type QuotaKind, type QuotaLimits, quotaLimit } from "@levelrail/spec/quotas";
import { isUuid } from "@levelrail/spec/rules";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { notificationChannel } from "@levelrail/db/schema/notifications";
import { type Ctx, MAX_LIST_ROWS, bounded, orgOf, parse } from "../context";
import { type AuditSource, cliSource, recordAudit } from "../audit/record";
import { authorize } from "./permissions";

/**
 * Per-organization quotas: the most apps, services, databases, domains and notification channels
 * one organization may have. The limit is the organization's own (`org_quota`, set by the installation's administrator
 * with `levelrail quota set`) or, where that is null or absent, the installation default
 * (`LEVELRAIL_QUOTA_*`, reaching the verbs as `ctx.quotas`).
 *
 * Every verb that creates something counted calls `assertQuota` inside its own transaction, before
 * writing: it locks the organization's row, counts, and throws `quota_exceeded` (409) naming the
 * quota and its value, so the transaction writes nothing. The lock serialises the checks of one
 * organization, so parallel creates cannot pass the same last free slot together.
 */

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Reads run on the database or inside a transaction. */
type Reader = Db | Tx;

export type QuotaSource = "default" | "organization";

/** One quota as the API answers it. */
export interface QuotaView {
  limit: number;
  used: number;
  /** `organization`: set for this organization; `default`: the installation's. */
  source: QuotaSource;
}

/** GET /api/v1/orgs/{id}/quotas. */
export interface QuotasView {
  quotas: Record<QuotaKind, QuotaView>;
}

const one = (rows: { n: number }[]) => Number(rows[0]?.n ?? 0);

/** How much of each kind an organization has now (every environment of every project). */
const counters: Record<QuotaKind, (db: Reader, orgId: string) => Promise<number>> = {
  apps: async (db, orgId) => one(await db.select({ n: count() }).from(app).where(eq(app.orgId, orgId))),
  services: async (db, orgId) => one(await db.select({ n: count() }).from(service).where(eq(service.orgId, orgId))),
  domains: async (db, orgId) =>
    one(await db.select({ n: sql<number>`coalesce(sum(jsonb_array_length(${service.domains})), 0)::int` }).from(service).where(eq(service.orgId, orgId))),
  databases: async (db, orgId) => one(await db.select({ n: count() }).from(managedDatabase).where(eq(managedDatabase.orgId, orgId))),
  channels: async (db, orgId) => one(await db.select({ n: count() }).from(notificationChannel).where(eq(notificationChannel.orgId, orgId))),
};

/** Each kind's limit for one organization, and whether it is the organization's own or the default. */
export async function effectiveQuotas(db: Reader, orgId: string, defaults: QuotaLimits = DEFAULT_QUOTAS): Promise<Record<QuotaKind, { limit: number; source: QuotaSource }>> {
  const [row] = await db.select().from(orgQuota).where(eq(orgQuota.orgId, orgId));
  const limitOf = (kind: QuotaKind) => {
    const own = row?.[kind] ?? null;
    return own === null ? { limit: defaults[kind], source: "default" as const } : { limit: own, source: "organization" as const };
  };
  return { apps: limitOf("apps"), services: limitOf("services"), databases: limitOf("databases"), domains: limitOf("domains"), channels: limitOf("channels") };
}

/**
 * Takes the organization's row for the rest of the transaction. `FOR NO KEY UPDATE`, not `FOR
 * UPDATE`: it excludes the other quota checks of this organization, but not the `FOR KEY SHARE`
 * that PostgreSQL takes on it for every row inserted with a foreign key to it, so a transaction
 * that inserted such a row before checking (a cloned environment) cannot deadlock with another.
 */
async function lockOrganization(tx: Tx, orgId: string): Promise<void> {
  await tx.select({ id: organization.id }).from(organization).where(eq(organization.id, orgId)).for("no key update");
}

function exceeded(kind: QuotaKind, limit: number, used: number, adding: number): LevelrailError {
  const adds = adding === 1 ? "this adds 1" : `this would add ${adding}`;
  return new LevelrailError(
    "quota_exceeded",
    `organization quota reached: ${kind} (${limit}); it has ${used} and ${adds}; remove some or ask the installation's administrator to raise it (levelrail quota set)`,
    // The request field that carries the excess, where there is one: a service's domains. Apps and
    // services are counted per request, not named by a field.
    kind === "domains" ? { field: "domains" } : {},
  );
}

/**
 * Refuses (409 `quota_exceeded`) when adding `adding` of each kind would take the organization
 * over its quota. Call it inside the creating transaction, before the writes. Only an addition is
 * refused: an organization above a lowered quota keeps what it has and may remove it.
 */
export async function assertQuota(ctx: Pick<Ctx, "quotas">, tx: Tx, orgId: string, adding: Partial<Record<QuotaKind, number>>): Promise<void> {
  const kinds = QUOTA_KINDS.filter((kind) => (adding[kind] ?? 0) > 0);
  if (kinds.length === 0) return;
  await lockOrganization(tx, orgId);
  const limits = await effectiveQuotas(tx, orgId, ctx.quotas);
  for (const kind of kinds) {
    const add = adding[kind] ?? 0;
    const used = await counters[kind](tx, orgId);
    if (used + add > limits[kind].limit) throw exceeded(kind, limits[kind].limit, used, add);
  }
}

/**
 * Refuses (409 `quota_exceeded`, field `domains`) when setting service `serviceId`'s domains to
 * `next` of them would take the organization's domains over the quota: every service's domains
 * counted after the change. Fewer or as many as before always pass.
 */
export async function assertDomainQuota(ctx: Pick<Ctx, "quotas">, tx: Tx, orgId: string, serviceId: string, next: number): Promise<void> {
  await lockOrganization(tx, orgId);
  const [own] = await tx.select({ domains: service.domains }).from(service).where(eq(service.id, serviceId));
  await assertQuota(ctx, tx, orgId, { domains: next - (own?.domains.length ?? 0) });
}

/** Limits and use of one organization. */
async function quotasOf(db: Reader, orgId: string, defaults: QuotaLimits | undefined): Promise<QuotasView> {
  const limits = await effectiveQuotas(db, orgId, defaults);
  const view = async (kind: QuotaKind): Promise<QuotaView> => ({ ...limits[kind], used: await counters[kind](db, orgId) });
  return {
    quotas: { apps: await view("apps"), services: await view("services"), databases: await view("databases"), domains: await view("domains"), channels: await view("channels") },
  };
}

/** GET /api/v1/orgs/{id}/quotas: for the organization's members (404 for anyone else). */
export async function getQuotas({ ctx, orgId }: { ctx: Ctx; orgId: string }): Promise<QuotasView> {
  const org = orgOf(ctx, orgId);
  authorize(ctx, "quota.read", { orgId: org });
  return quotasOf(ctx.db, org, ctx.quotas);
}

/* The installation administrator's verbs (`levelrail quota show|set`): no actor, any organization. */

/** An organization by id, for the administrator: 404 naming `org` otherwise. */
async function organizationFor(db: Db, orgId: string) {
  const [org] = isUuid(orgId) ? await db.select().from(organization).where(eq(organization.id, orgId)) : [];
  if (!org) throw new LevelrailError("not_found", `no organization with id ${orgId}`, { field: "org" });
  return org;
}

export interface AdminQuotasView extends QuotasView {
  org: { id: string; name: string };
}

/** `levelrail quota show --org ID`. */
export async function showOrgQuotas(db: Db, orgId: string, defaults: QuotaLimits | undefined): Promise<AdminQuotasView> {
  const org = await organizationFor(db, orgId);
  return { org: { id: org.id, name: org.name }, ...(await quotasOf(db, org.id, defaults)) };
}

/** `levelrail quota show` without `--org`: every organization, oldest first (at most MAX_LIST_ROWS). */
export async function showAllOrgQuotas(db: Db, defaults: QuotaLimits | undefined): Promise<AdminQuotasView[]> {
  const orgs = await db.select().from(organization).orderBy(organization.createdAt).limit(MAX_LIST_ROWS + 1);
  const out: AdminQuotasView[] = [];
  for (const org of bounded(orgs, "organizations", "name one with --org")) out.push({ org: { id: org.id, name: org.name }, ...(await quotasOf(db, org.id, defaults)) });
  return out;
}

/** Each kind: a limit, `null` for the installation default again, or left out to keep it. */
const setInput = z
  .object({
    apps: quotaLimit.nullable().optional(),
    services: quotaLimit.nullable().optional(),
    databases: quotaLimit.nullable().optional(),
    domains: quotaLimit.nullable().optional(),
    channels: quotaLimit.nullable().optional(),
    /** Every kind back to the installation default first. */
    reset: z.boolean().optional(),
  })
  .strict();

/**
 * `levelrail quota set --org ID [--apps N] … [--reset]`: sets an organization's own quotas. A
 * limit below what the organization has removes nothing; creating more is refused until it is
 * below again.
 */
export async function setOrgQuotas(db: Db, orgId: string, input: unknown, defaults: QuotaLimits | undefined, source: AuditSource = cliSource()): Promise<AdminQuotasView> {
  const { reset, ...limits } = parse(setInput, input);
  const org = await organizationFor(db, orgId);
  await db.transaction(async (tx) => {
    if (reset) await tx.delete(orgQuota).where(eq(orgQuota.orgId, org.id));
    const given = Object.fromEntries(QUOTA_KINDS.filter((k) => limits[k] !== undefined).map((k) => [k, limits[k] ?? null]));
    const fields = [...(reset ? ["reset"] : []), ...Object.keys(given)];
    if (fields.length) await recordAudit(tx, source, { orgId: org.id, action: "quota.set", target: { type: "organization", id: org.id, name: org.name }, fields });
    if (Object.keys(given).length === 0) return;
    await tx
      .insert(orgQuota)
      .values({ orgId: org.id, ...given })
      .onConflictDoUpdate({ target: orgQuota.orgId, set: { ...given, updatedAt: new Date() } });
  });
  return showOrgQuotas(db, org.id, defaults);
}
