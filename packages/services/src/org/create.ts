import { and, count, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "@levelrail/db/client";
import { environment, membership, organization, project } from "@levelrail/db/schema/orgs";
import { LevelrailError } from "@levelrail/spec/errors";
import { type Ctx, parse } from "../context";
import { type OrgView, toOrgView } from "./list";
import { audit } from "../audit/record";
import { refuseReadOnly } from "./permissions";

const input = z.object({ name: z.string().trim().min(1, "is required").max(100) }).strict();

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Who may create organizations through the API (`LEVELRAIL_ORG_CREATION`) and how many one operator
 * may own (`LEVELRAIL_MAX_ORGS_PER_OPERATOR`): organizations are where quotas and fair shares apply,
 * so making more of them must not be free. The CLI's `admin create` (bootstrapOrg) is not limited.
 */
export interface OrgCreationPolicy {
  /** `owners`: only operators who already own an organization; `anyone`: every operator; `none`: nobody. */
  who: "owners" | "anyone" | "none";
  /** The most organizations one operator may own. */
  maxPerOperator: number;
}

export const DEFAULT_ORG_CREATION: OrgCreationPolicy = { who: "owners", maxPerOperator: 5 };

async function insertOrg(tx: Tx, userId: string, name: string) {
  const [org] = await tx.insert(organization).values({ name }).returning();
  if (!org) throw new Error("insert returned nothing");
  await tx.insert(membership).values({ orgId: org.id, userId, role: "owner" });
  const [proj] = await tx.insert(project).values({ orgId: org.id, name: "default" }).returning();
  if (!proj) throw new Error("insert returned nothing");
  const [env] = await tx.insert(environment).values({ orgId: org.id, projectId: proj.id, name: "production" }).returning();
  return { org, project: proj, environment: env };
}

/** An organization with a default project and environment, owned by `userId` (rows: for the CLI and test seeding). */
export async function bootstrapOrg(db: Db, userId: string, name: string) {
  return db.transaction((tx) => insertOrg(tx, userId, name));
}

const refused = (message: string) => new LevelrailError("conflict", message);

/**
 * Creates an organization owned by the caller, within `policy` (409 naming the setting to change
 * when it does not allow it). The check and the insert run under a per-operator lock, so parallel
 * requests cannot pass the cap together.
 */
export async function createOrg({ ctx, input: raw, policy = DEFAULT_ORG_CREATION }: { ctx: Ctx; input: unknown; policy?: OrgCreationPolicy }): Promise<OrgView> {
  refuseReadOnly(ctx.actor, "creating an organization");
  const { name } = parse(input, raw);
  if (policy.who === "none") {
    throw refused("creating organizations is turned off on this installation (LEVELRAIL_ORG_CREATION=none); the administrator can set it to owners or anyone");
  }
  const userId = ctx.actor.userId;
  const { org } = await ctx.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`levelrail.org-create:${userId}`}))`);
    const [owned] = await tx
      .select({ n: count() })
      .from(membership)
      .where(and(eq(membership.userId, userId), eq(membership.role, "owner")));
    const n = owned?.n ?? 0;
    if (policy.who === "owners" && n === 0) {
      throw refused("only operators who own an organization may create more (LEVELRAIL_ORG_CREATION=owners); the administrator can set LEVELRAIL_ORG_CREATION=anyone");
    }
    if (n >= policy.maxPerOperator) {
      throw refused(
        `you own ${n} organizations, the most one operator may own on this installation (LEVELRAIL_MAX_ORGS_PER_OPERATOR=${policy.maxPerOperator}); the administrator can raise it`,
      );
    }
    const made = await insertOrg(tx, userId, name);
    await audit(ctx, tx, { orgId: made.org.id, action: "organization.create", target: { type: "organization", id: made.org.id, name }, fields: ["name"] });
    return made;
  });
  ctx.actor.orgIds.push(org.id);
  return toOrgView(org);
}

/** For the OpenAPI document (apps/web/lib/openapi): the schema this file parses its input with. */
export { input as orgInput };
