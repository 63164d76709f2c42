import type { ZodType } from "zod";
import { type AnyColumn, type SQL, inArray, or } from "drizzle-orm";
import type { Actor } from "@levelrail/auth";
import type { Db } from "@levelrail/db/client";
import type { SecretsKit } from "./env/sources";
import type { Lookup, TargetPolicy } from "./notifications/address";
import { LevelrailError } from "@levelrail/spec/errors";
import { issueMessage } from "@levelrail/spec/zod-issue";
import type { QuotaLimits } from "@levelrail/spec/quotas";
import type { AuditSource } from "./audit/record";

/** Every verb gets the database, who is asking, and the keys that seal and fingerprint secrets. */
export interface Ctx {
  db: Db;
  actor: Actor;
  kit: SecretsKit;
  /** The host operators reach the panel at: no service may claim it as a domain (it would get the panel's cookies). */
  panelHost?: string;
  /** The installation's default quotas (`LEVELRAIL_QUOTA_*`); unset: their documented defaults (DEFAULT_QUOTAS). */
  quotas?: QuotaLimits;
  /** `LEVELRAIL_BASE_DOMAINS`: their subdomains (and `*.localhost`) route without an ownership proof; unset: none. */
  baseDomains?: string[];
  /**
   * `LEVELRAIL_ALLOW_PRIVATE_TARGETS`: webhooks, SMTP servers and backup targets may be loopback,
   * private or link-local addresses (or the panel's own host). Unset: false, only public addresses.
   */
  allowPrivateTargets?: boolean;
  /** How names of those targets are resolved when checked; unset: the system's resolver (tests answer names without DNS). */
  targetLookup?: Lookup;
  /** `LEVELRAIL_SHORT_NAME`, the prefix of Docker object names (a database's volumes); unset: `levelrail`. */
  shortName?: string;
  /** Who is changing things and from where, for the audit log (`audit/record.ts`); unset: `actor` as a user, no address. */
  audit?: AuditSource;
  /**
   * Which engine the installation runs on (the web app's `nodesReader()`), asked only when a service
   * asks for what one engine cannot run (replicas above 1, a placement). Unset: such a request fails
   * as the product's fault (500), never runs as one container nor is refused as if on one engine.
   */
  engine?: EngineKindReader;
}

/** The one question the service verbs ask of the engine: one engine or a swarm (`node/list.ts`'s `NodesReader` answers it). */
export interface EngineKindReader {
  nodes(): Promise<{ engine: "single" | "swarm" }>;
}

/** The installation's address policy for what the panel connects to on a tenant's behalf. */
export function targetPolicy(ctx: Pick<Ctx, "allowPrivateTargets" | "panelHost" | "targetLookup">): TargetPolicy {
  return { allowPrivate: ctx.allowPrivateTargets === true, panelHost: ctx.panelHost, lookup: ctx.targetLookup };
}

/** zod parse that throws a 400 naming the first wrong field. */
export function parse<T>(schema: ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input ?? {});
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (!issue) return fail(undefined, "invalid input");
  // An unknown field is named by its own path (`hooks.shell`), not just its key.
  const path = issue.code === "unrecognized_keys" ? [...issue.path, issue.keys[0] ?? ""] : issue.path;
  const field = path.map(String).join(".") || undefined;
  const message = issueMessage(issue, input ?? {});
  return fail(field, field ? `${field}: ${message}` : message);
}

function fail(field: string | undefined, message: string): never {
  throw new LevelrailError("invalid_input", message, field === undefined ? {} : { field });
}

/**
 * The 403 for an organization the caller belongs to but this session may not act in, saying how to
 * sign in for it; null when the session may (or the caller is no member: that is a 404 elsewhere).
 * Such organizations are left out of `orgIds` (packages/auth's `actorFor`): a session another
 * organization's single sign-on opened, a password session where the organization requires single
 * sign-on, a session without the second factor the organization requires. Only routes acting in that
 * organization are refused; every other one works (docs/operating/teams-and-sso.md).
 */
export function sessionRefusal(actor: Pick<Actor, "ssoSessionRefusedBy" | "ssoRequiredBy" | "secondFactorRequiredBy">, orgId: string): LevelrailError | null {
  if (actor.ssoSessionRefusedBy?.includes(orgId)) {
    return new LevelrailError(
      "forbidden",
      "this session came through another organization's single sign-on and acts only there: to work in this organization, sign out and sign in the way it allows (your password and second factor, or its own single sign-on)",
    );
  }
  if (actor.ssoRequiredBy?.includes(orgId)) {
    return new LevelrailError("forbidden", "this organization requires single sign-on: sign out and sign in with SSO (Sign in with SSO on the sign-in page)");
  }
  if (actor.secondFactorRequiredBy?.includes(orgId)) {
    return new LevelrailError("forbidden", "this organization requires a second factor: enrol one on your account page (/account) first");
  }
  return null;
}

/** The caller's organization to act in: the one named, or their first. */
export function orgOf(ctx: Ctx, orgId: string | undefined): string {
  if (orgId !== undefined) {
    const refused = sessionRefusal(ctx.actor, orgId);
    if (refused) throw refused;
    if (!ctx.actor.orgIds.includes(orgId)) throw new LevelrailError("not_found", "organization not found", { field: "orgId" });
    return orgId;
  }
  const first = ctx.actor.orgIds[0];
  if (!first) {
    // Every organization of the caller refuses this session: say how to sign in for the first.
    const [held] = ctx.actor.memberships;
    const refused = held ? sessionRefusal(ctx.actor, held.orgId) : null;
    if (refused) throw refused;
    throw new LevelrailError("not_found", "you belong to no organization; ask an owner to add you", { field: "orgId" });
  }
  return first;
}

/** Map a unique-constraint violation to a 409 naming the field. */
export async function uniquely<T>(field: string, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const code = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    if (code === "23505") throw new LevelrailError("conflict", `${what} exists already`, { field });
    throw err;
  }
}

const NO_ORG = "00000000-0000-0000-0000-000000000000";
/** The caller's organization ids for a `WHERE org_id IN (...)`; never empty. */
export const scope = (ctx: Ctx): string[] => (ctx.actor.orgIds.length ? ctx.actor.orgIds : [NO_ORG]);

/**
 * The organizations the caller holds an organization-wide role in: their organization-level things
 * (backup targets, registry credentials, channels, the org tier) are listed only there. A member
 * whose role holds on one project only sees none of them.
 */
export const orgWideScope = (ctx: Ctx): string[] => {
  const ids = ctx.actor.memberships.filter((m) => m.projectId === null && ctx.actor.orgIds.includes(m.orgId)).map((m) => m.orgId);
  return ids.length ? ids : [NO_ORG];
};

/**
 * The WHERE condition for rows of projects the caller may see: every project of an organization they
 * hold an organization-wide role in, and the one project of a project-limited membership.
 */
export function visibleProjects(ctx: Ctx, orgColumn: AnyColumn, projectColumn: AnyColumn): SQL {
  const limited = ctx.actor.memberships.filter((m) => m.projectId !== null && ctx.actor.orgIds.includes(m.orgId)).map((m) => m.projectId as string);
  const wide = inArray(orgColumn, orgWideScope(ctx));
  return limited.length ? (or(wide, inArray(projectColumn, limited)) as SQL) : wide;
}

/** Ids are UUIDs; anything else names nothing (and must not reach a uuid column). */
export { isUuid } from "@levelrail/spec/rules";

/**
 * The most rows a list without paging answers (docs/api.md#paging-and-bounded-lists); paged lists (`?limit=`) answer at most
 * 200 a page. Every unpaged list query runs with `.limit(MAX_LIST_ROWS + 1)` and hands its rows to
 * `bounded`, so no route returns an unbounded number of rows.
 */
export const MAX_LIST_ROWS = 1000;

/** The rows of an unpaged list; more than MAX_LIST_ROWS is a 400 naming `field`, saying how to narrow or page. */
export function bounded<T>(rows: T[], what: string, narrow: string, field = "limit"): T[] {
  if (rows.length <= MAX_LIST_ROWS) return rows;
  throw new LevelrailError("invalid_input", `${field}: more than ${MAX_LIST_ROWS} ${what} to list; ${narrow}`, { field });
}
