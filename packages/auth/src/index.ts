import { createHash, randomBytes } from "node:crypto";
import { betterAuth } from "better-auth";
import { drizzleAdapter } from "better-auth/adapters/drizzle";
import { twoFactor as twoFactorPlugin } from "better-auth/plugins";
import { and, desc, eq } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { account, apiToken, session, twoFactor, user, verification } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { membership, organization } from "@levelrail/db/schema/orgs";
import { ssoConnection } from "@levelrail/db/schema/sso";
import { deriveKey } from "@levelrail/secrets";
import { LevelrailError } from "@levelrail/spec/errors";
import { isUuid } from "@levelrail/spec/rules";
import type { Membership } from "@levelrail/spec/roles";
import { NO_SSO, type SsoBackend, orgSso, ssoGates } from "./sso";

export interface AuthOptions {
  db: Db;
  masterKey: Buffer;
  baseURL: string;
  trustedOrigins: string[];
  /** Single sign-on through each organization's OpenID Connect connection (`sso.ts`); unset: none. */
  sso?: SsoBackend;
}

/**
 * Over HTTPS the session cookie is `__Host-`-prefixed and `Secure`: the browser then sends it only to
 * the panel's own host over TLS, never to a subdomain an app was given, and no app can set one for us.
 */
export const secureCookies = (baseURL: string) =>
  baseURL.startsWith("https://")
    ? { useSecureCookies: false, cookiePrefix: "__Host-levelrail", defaultCookieAttributes: { secure: true, path: "/", sameSite: "lax" as const } }
    : {};

/**
 * The header the web server sets to the caller's address (its socket peer, or the first untrusted
 * X-Forwarded-For hop behind a trusted proxy), replacing whatever a client sent: the sign-in rate
 * limit keys on it, so rotating X-Forwarded-For does not reset it.
 */
export const CLIENT_IP_HEADER = "x-levelrail-client-ip";

/**
 * Second-factor failures before the account's second factor locks, and for how long. A sign-in
 * attempt (the challenge after the password) also ends after five wrong codes: a new one needs
 * the password again.
 */
export const SECOND_FACTOR_LOCKOUT = { maxFailedAttempts: 5, durationSeconds: 15 * 60 } as const;

/**
 * Sessions: a week, renewed (and their "last active" time written) at most once an hour of use;
 * the renewal is better-auth's `updateAge`.
 */
export const SESSION_MAX_AGE_SECONDS = 60 * 60 * 24 * 7;
export const SESSION_UPDATE_AGE_SECONDS = 60 * 60;

/** better-auth over our Drizzle schema: email + password, no open sign-up, TOTP second factor with recovery codes. */
export function createAuth(o: AuthOptions) {
  return betterAuth({
    appName: "Levelrail",
    advanced: { ...secureCookies(o.baseURL), ipAddress: { ipAddressHeaders: [CLIENT_IP_HEADER] } },
    database: drizzleAdapter(o.db, { provider: "pg", schema: { user, session, account, verification, twoFactor } }),
    secret: deriveKey(o.masterKey, "session").toString("base64"),
    baseURL: o.baseURL,
    trustedOrigins: o.trustedOrigins,
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 8 },
    telemetry: { enabled: false },
    session: {
      expiresIn: SESSION_MAX_AGE_SECONDS,
      updateAge: SESSION_UPDATE_AGE_SECONDS,
      // Set by the SSO plugin's callback: which organization's single sign-on opened the session.
      additionalFields: { ssoOrgId: { type: "string", required: false, input: false } },
    },
    databaseHooks: ssoGates(o.sso ?? NO_SSO),
    plugins: [
      orgSso(o.sso ?? NO_SSO, CLIENT_IP_HEADER),
      twoFactorPlugin({
        issuer: "Levelrail",
        // Recovery codes: ten, each good once, stored encrypted with the auth secret.
        backupCodeOptions: { amount: 10, length: 10, storeBackupCodes: "encrypted" },
        accountLockout: { enabled: true, ...SECOND_FACTOR_LOCKOUT },
      }),
    ],
  });
}
export type Auth = ReturnType<typeof createAuth>;

/** Who is calling, with the organizations they belong to and their role in each (read at every request). */
export interface Actor {
  userId: string;
  email: string;
  orgIds: string[];
  /** One per organization: the role, on the whole organization or on one project. */
  memberships: Membership[];
  /** A read-only API token: every membership acts as a viewer, and nothing may change (every non-GET route refuses it). */
  readOnly?: boolean;
  /**
   * An installation administrator (`levelrail admin grant`): the only one who changes what belongs to
   * the installation (its nodes). Never through a read-only token, nor a session an organization's
   * single sign-on opened.
   */
  installationAdmin?: boolean;
  /** The better-auth session of a signed-in browser (absent for an API token): "this device" in the sessions list. */
  sessionId?: string;
  /**
   * Organizations the caller belongs to that require a second factor they have not enrolled
   * (`require2fa`): left out of `orgIds` for a session, so nothing of theirs is reachable until the
   * caller enrols. API tokens are not affected (empty).
   */
  secondFactorRequiredBy?: string[];
  /**
   * Organizations the caller belongs to that require single sign-on (`requireSso`) which this
   * session did not come through: left out of `orgIds` like `secondFactorRequiredBy`. Tokens: empty.
   */
  ssoRequiredBy?: string[];
  /** The organization whose single sign-on opened this session (null: password or another way). */
  ssoOrgId?: string | null;
  /**
   * Organizations the caller belongs to that this session may not act in: it came through another
   * organization's single sign-on, and such a session acts in that organization only (left out of
   * `orgIds`; naming one answers 403 saying how to sign in for it). Tokens and password sessions: empty.
   */
  ssoSessionRefusedBy?: string[];
  /** Set when the caller authenticated with an API token (the audit log names the token). */
  token?: { id: string; name: string };
}

/**
 * The actor of a user, with their memberships and roles. `session`: they came with a session cookie,
 * whose id is kept and whose organizations that require a second factor are withheld until they
 * enrol one. `readOnly` (a read-only API token): every membership acts as a viewer.
 */
export async function actorFor(
  db: Db,
  userId: string,
  email: string,
  session?: { id: string; twoFactorEnabled: boolean; ssoOrgId?: string | null | undefined },
  readOnly = false,
): Promise<Actor> {
  const rows = await db
    .select({ orgId: membership.orgId, role: membership.role, projectId: membership.projectId, require2fa: organization.require2fa, requireSso: ssoConnection.requireSso })
    .from(membership)
    .innerJoin(organization, eq(organization.id, membership.orgId))
    .leftJoin(ssoConnection, eq(ssoConnection.orgId, membership.orgId))
    .where(eq(membership.userId, userId));
  const memberships = rows.map((r) => ({ orgId: r.orgId, role: readOnly ? ("viewer" as const) : r.role, projectId: r.projectId }));
  const installation = readOnly ? false : await isInstallationAdmin(db, userId);
  if (!session) return { userId, email, orgIds: rows.map((r) => r.orgId), memberships, installationAdmin: installation, ...(readOnly ? { readOnly } : {}) };
  const ssoOrgId = session.ssoOrgId ?? null;
  // A session an organization's single sign-on opened acts in that organization only: its identity
  // provider vouches for nobody elsewhere (nor for the second factor other organizations may ask).
  const elsewhere = ssoOrgId === null ? [] : rows.filter((r) => r.orgId !== ssoOrgId).map((r) => r.orgId);
  const blocked = session.twoFactorEnabled ? [] : rows.filter((r) => r.require2fa && !elsewhere.includes(r.orgId)).map((r) => r.orgId);
  const ssoBlocked = ssoOrgId === null ? rows.filter((r) => r.requireSso === true).map((r) => r.orgId) : [];
  return {
    userId,
    email,
    orgIds: rows.filter((r) => !blocked.includes(r.orgId) && !ssoBlocked.includes(r.orgId) && !elsewhere.includes(r.orgId)).map((r) => r.orgId),
    memberships,
    // An organization's identity provider vouches for its organization only: never for the
    // installation (nor for the second factor a password sign-in asks).
    installationAdmin: installation && ssoOrgId === null,
    sessionId: session.id,
    secondFactorRequiredBy: blocked,
    ssoRequiredBy: ssoBlocked,
    ssoOrgId,
    ssoSessionRefusedBy: elsewhere,
  };
}

/** Is the user an installation administrator (`installation_admin`)? */
export async function isInstallationAdmin(db: Db, userId: string): Promise<boolean> {
  const [row] = await db.select({ userId: installationAdmin.userId }).from(installationAdmin).where(eq(installationAdmin.userId, userId));
  return row !== undefined;
}

/** Creates an operator with a hashed password (better-auth's own hashing). */
export async function createOperator(auth: Auth, email: string, password: string): Promise<{ id: string; email: string }> {
  const ctx = await auth.$context;
  if (password.length < 8) throw new LevelrailError("invalid_input", "password must be at least 8 characters", { field: "password" });
  const existing = await ctx.internalAdapter.findUserByEmail(email.toLowerCase());
  if (existing) throw new LevelrailError("conflict", `an operator with email ${email} exists already`, { field: "email" });
  const hash = await ctx.password.hash(password);
  const created = await ctx.internalAdapter.createUser({ email: email.toLowerCase(), name: email, emailVerified: true }, { method: "admin" });
  await ctx.internalAdapter.linkAccount({ userId: created.id, providerId: "credential", accountId: created.id, password: hash });
  return { id: created.id, email: created.email };
}

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** `90d`, `12h`, `30m`: a token lifetime; at most ten years. */
export function parseLifetime(text: string): number {
  const m = /^(\d{1,6})([dhm])$/.exec(text.trim());
  if (!m) throw new LevelrailError("invalid_input", "expires-in: must be a number of days, hours or minutes like 90d, 12h or 30m", { field: "expiresIn" });
  const ms = Number(m[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as "d" | "h" | "m"];
  if (ms <= 0 || ms > 3650 * 86_400_000) throw new LevelrailError("invalid_input", "expires-in: must be between 1 minute and 3650 days", { field: "expiresIn" });
  return ms;
}

/**
 * Issues an API token; only its hash is stored, the token is returned once. `expiresInMs`: it stops
 * working after that. It acts with its creator's role at each request, never more; `readOnly`: as a viewer.
 */
export async function createApiToken(db: Db, email: string, name: string, expiresInMs?: number, readOnly = false): Promise<string> {
  const [u] = await db.select({ id: user.id }).from(user).where(eq(user.email, email.toLowerCase()));
  if (!u) throw new LevelrailError("not_found", `no operator with email ${email}`, { field: "email" });
  const token = `lr_${randomBytes(32).toString("base64url")}`;
  const expiresAt = expiresInMs === undefined ? null : new Date(Date.now() + expiresInMs);
  await db.insert(apiToken).values({ userId: u.id, name, tokenHash: hashToken(token), expiresAt, readOnly });
  return token;
}

/**
 * The actor behind a bearer token, or null (unknown, revoked or expired, or its creator is a member
 * of no organization any more: a removed member's tokens answer 401 at once). The memberships are
 * read at every request, so a token never acts with a role its creator no longer holds.
 */
export async function actorForToken(db: Db, token: string): Promise<Actor | null> {
  const [row] = await db
    .select({ userId: apiToken.userId, email: user.email, id: apiToken.id, name: apiToken.name, expiresAt: apiToken.expiresAt, readOnly: apiToken.readOnly })
    .from(apiToken)
    .innerJoin(user, eq(user.id, apiToken.userId))
    .where(eq(apiToken.tokenHash, hashToken(token)));
  if (!row) return null;
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) return null;
  const actor = await actorFor(db, row.userId, row.email, undefined, row.readOnly);
  if (actor.memberships.length === 0) return null;
  await db.update(apiToken).set({ lastUsedAt: new Date() }).where(eq(apiToken.id, row.id));
  return { ...actor, token: { id: row.id, name: row.name } };
}

/** A token as it is listed: never the token or its hash. */
export interface TokenView {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  expired: boolean;
  readOnly: boolean;
}

/** The most tokens `listApiTokens` answers (the list has no paging; the services' lists have the same maximum). */
export const MAX_TOKENS_LISTED = 1000;

/** One operator's API tokens, newest first; more than MAX_TOKENS_LISTED is a 400 (revoke some). */
export async function listApiTokens(db: Db, userId: string): Promise<TokenView[]> {
  const rows = await db
    .select()
    .from(apiToken)
    .where(eq(apiToken.userId, userId))
    .orderBy(desc(apiToken.createdAt))
    .limit(MAX_TOKENS_LISTED + 1);
  if (rows.length > MAX_TOKENS_LISTED) {
    throw new LevelrailError("invalid_input", `limit: more than ${MAX_TOKENS_LISTED} tokens to list; revoke the ones you no longer use (levelrail token revoke)`, { field: "limit" });
  }
  const now = Date.now();
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    createdAt: t.createdAt.toISOString(),
    lastUsedAt: t.lastUsedAt?.toISOString() ?? null,
    expiresAt: t.expiresAt?.toISOString() ?? null,
    expired: t.expiresAt !== null && t.expiresAt.getTime() <= now,
    readOnly: t.readOnly,
  }));
}

/** Revokes a token: one of `userId`'s (the API), or any (the CLI on the host, `userId` null); 404 otherwise. */
export async function revokeApiToken(db: Pick<Db, "delete">, userId: string | null, id: string): Promise<{ id: string; name: string; userId: string }> {
  const gone = isUuid(id)
    ? await db
        .delete(apiToken)
        .where(and(eq(apiToken.id, id), userId === null ? undefined : eq(apiToken.userId, userId)))
        .returning({ id: apiToken.id, name: apiToken.name, userId: apiToken.userId })
    : [];
  const [row] = gone;
  if (!row) throw new LevelrailError("not_found", "token not found");
  return row;
}
