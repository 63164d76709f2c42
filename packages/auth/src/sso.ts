import { type JsonWebKey, createPublicKey } from "node:crypto";
import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthEndpoint, createAuthMiddleware, getSessionFromCtx } from "better-auth/api";
import { authorizationCodeRequest, getOAuth2Tokens, parseStringBoolean } from "better-auth/oauth2";
import { genericOAuth } from "better-auth/plugins";
import { z } from "zod";

/**
 * Single sign-on with OpenID Connect, one connection per organization, through better-auth's
 * `genericOAuth` provider (authorization code with PKCE, `state` bound to the browser, the ID token
 * verified against the issuer's key set with its `nonce`). Its providers are fixed when the auth
 * instance starts, while ours live in the database with a sealed secret and change at any time: so
 * before each sign-in and callback through `sso-<orgId>`, the organization's connection is read
 * (the secret opened), built by `genericOAuth` itself, and put in place of any older one. Every
 * request to the identity provider (discovery, the token exchange, its key set, userinfo) goes
 * through the connection's `http`, which the caller makes under the installation's address policy:
 * better-auth's own fetches are never used for it.
 */

/** What the auth layer needs from the caller (the web app wires it to the services). */
export interface SsoBackend {
  /** The organization's connection with its client secret opened, or null when it has none. */
  connection(orgId: string): Promise<SsoClient | null>;
  /** The organization whose connection has proven this email domain (only a proven one routes), or null. */
  orgForDomain(domain: string): Promise<string | null>;
  /**
   * May the organization's connection be linked to this user: one it has just created (no account
   * yet), or a member of the organization? Anybody else's account is never linked to it.
   */
  mayLink(orgId: string, userId: string): Promise<boolean>;
  /**
   * Why the organization's connection may not sign in this person (a message for them), or null
   * when it may: the email's domain must be one the organization has proven it owns. Asked with
   * the email the provider asserts before a user is made, and with the user's id before an account
   * is linked or a session opened.
   */
  refusal(orgId: string, who: { email: string } | { userId: string }): Promise<string | null>;
  /**
   * A sign-in through the organization's connection succeeded: make the user a member (or apply
   * the group mapping to their role), mark the session as signed in through it, record it.
   */
  signedIn(event: SsoSignIn): Promise<void>;
}

/** No single sign-on (the CLI, tests of other things): no connection, no domain, nothing linked. */
export const NO_SSO: SsoBackend = {
  connection: async () => null,
  orgForDomain: async () => null,
  mayLink: async () => false,
  refusal: async () => "single sign-on is not set up here",
  signedIn: async () => undefined,
};

export interface SsoClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The claim holding the user's groups (null: no mapping). */
  groupsClaim: string | null;
  /** How every request to the identity provider is made (the caller's address policy, no redirects). */
  http: SsoHttp;
}

/** One HTTP request to an identity provider; rejects when the address policy refuses its host. */
export type SsoHttp = (url: string, init?: { method?: "GET" | "POST"; headers?: Record<string, string>; body?: string }) => Promise<{ status: number; text: string }>;

/** What the panel uses of an issuer's discovery document. */
interface Discovery {
  issuer: string;
  authorization: string;
  token: string;
  jwks: string;
  userinfo: string | null;
  algorithms: string[] | undefined;
}

const parseJson = (text: string, what: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // named below
  }
  throw new Error(`the identity provider's ${what} is not a JSON object`);
};

/** The issuer's discovery document, which must name the issuer itself (OpenID Connect Discovery §4.3). */
async function discover(c: SsoClient): Promise<Discovery> {
  const issuer = c.issuer.replace(/\/$/, "");
  const res = await c.http(`${issuer}/.well-known/openid-configuration`);
  if (res.status !== 200) throw new Error(`the issuer's discovery document answered ${res.status}`);
  const doc = parseJson(res.text, "discovery document");
  const text = (k: string) => (typeof doc[k] === "string" && doc[k] !== "" ? (doc[k] as string) : null);
  const named = text("issuer");
  if (named === null || named.replace(/\/$/, "") !== issuer) throw new Error("the discovery document names another issuer");
  const authorization = text("authorization_endpoint");
  const token = text("token_endpoint");
  const jwks = text("jwks_uri");
  if (!authorization || !token || !jwks) throw new Error("the discovery document names no authorization, token or key set endpoint");
  const algs = doc.id_token_signing_alg_values_supported;
  const algorithms = Array.isArray(algs) ? algs.filter((a): a is string => typeof a === "string" && a !== "none") : undefined;
  return { issuer: named, authorization, token, jwks, userinfo: text("userinfo_endpoint"), algorithms: algorithms?.length ? algorithms : undefined };
}

/** The claims of a JWT (its signature is checked elsewhere), or null. */
function claimsOf(jwt: string): Record<string, unknown> | null {
  try {
    return parseJson(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8"), "ID token");
  } catch {
    return null;
  }
}

/** The key an ID token names (by `kid`), from the issuer's key set, fetched once per sign-in through `http`. */
function keyFrom(c: SsoClient, jwksUrl: string) {
  let set: Promise<Record<string, unknown>[]> | null = null;
  const load = async () => {
    const res = await c.http(jwksUrl);
    if (res.status !== 200) throw new Error(`the issuer's key set answered ${res.status}`);
    const keys = parseJson(res.text, "key set").keys;
    return Array.isArray(keys) ? keys.filter((k): k is Record<string, unknown> => !!k && typeof k === "object") : [];
  };
  return async (header: { kid?: string; alg?: string }) => {
    set ??= load();
    const candidates = (await set).filter((k) => k.use !== "enc" && (header.kid === undefined || k.kid === header.kid) && (k.alg === undefined || k.alg === header.alg));
    if (candidates.length !== 1) throw new Error("the issuer's key set holds no single key for this ID token");
    return createPublicKey({ key: candidates[0] as JsonWebKey, format: "jwk" });
  };
}

export interface SsoSignIn {
  orgId: string;
  userId: string;
  email: string;
  /** The values of the groups claim, or null when the connection maps none or the claim was absent. */
  groups: string[] | null;
  sessionId: string;
  ip: string | null;
}

/**
 * The only better-auth routes a session an organization's single sign-on opened may use (an allow
 * list): reading itself, signing out, and signing in again (by password, or through single sign-on:
 * finding the connection, starting it, its callback), which open a new session rather than act with
 * this one. Such a session acts in that organization only, so every other route refuses it: they act
 * on the whole account (check or change its password, list its other sessions with their tokens,
 * list or unlink its accounts, change its name or email, enrol or use a second factor, end sessions).
 * Paths are better-auth's route patterns (`/callback/:id`).
 */
const SSO_SESSION_ROUTES = /^\/(get-session|sign-out|sign-in\/(email|social)|callback\/:id|sso\/provider|ok|error)$/;

const PREFIX = "sso-";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The better-auth provider id of an organization's connection. */
export const ssoProviderId = (orgId: string) => `${PREFIX}${orgId}`;

/** The organization of a provider id `sso-<uuid>`, or null for anything else. */
export function orgOfProvider(id: unknown): string | null {
  if (typeof id !== "string" || !id.startsWith(PREFIX)) return null;
  const orgId = id.slice(PREFIX.length);
  return UUID.test(orgId) ? orgId : null;
}

/** The groups claim's values as strings: an array of strings, or one string; anything else is none. */
export function groupsOf(profile: Record<string, unknown>, claim: string | null): string[] | null {
  if (!claim) return null;
  const v = profile[claim];
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((g): g is string => typeof g === "string");
  return null;
}

interface HookCtx {
  body?: unknown;
  params?: Record<string, string | undefined> | undefined;
  path?: string;
}

const requested = (ctx: HookCtx): unknown => {
  const body = ctx.body as { provider?: unknown } | undefined;
  return body?.provider ?? ctx.params?.id;
};

type Provider = { id: string };

/** Groups seen in a provider's profile, handed from the callback's profile mapping to its after hook. */
class GroupsSeen {
  private readonly seen = new Map<string, { groups: string[] | null; at: number }>();
  put(key: string, groups: string[] | null) {
    const now = Date.now();
    for (const [k, v] of this.seen) if (now - v.at > 60_000) this.seen.delete(k);
    this.seen.set(key, { groups, at: now });
  }
  take(key: string): string[] | null {
    const v = this.seen.get(key);
    this.seen.delete(key);
    return v?.groups ?? null;
  }
}

export function orgSso(backend: SsoBackend, ipHeader: string) {
  const groups = new GroupsSeen();
  const key = (providerId: string, email: string) => `${providerId}\n${email.toLowerCase()}`;

  /** Builds the organization's provider with genericOAuth and installs it in the shared provider list. */
  async function install(context: { socialProviders: unknown[] }, orgId: string): Promise<void> {
    const id = ssoProviderId(orgId);
    const list = context.socialProviders as Provider[];
    for (let i = list.length - 1; i >= 0; i--) if (list[i]?.id === id) list.splice(i, 1);
    const c = await backend.connection(orgId);
    if (!c) return;
    let d: Discovery;
    try {
      d = await discover(c);
    } catch (err) {
      throw new APIError("BAD_GATEWAY", { code: "SSO_PROVIDER_UNREACHABLE", message: `the organization's identity provider is not reachable from the panel: ${err instanceof Error ? err.message : String(err)}` });
    }
    const plugin = genericOAuth({
      config: [
        {
          providerId: id,
          authorizationUrl: d.authorization,
          tokenUrl: d.token,
          ...(d.userinfo ? { userInfoUrl: d.userinfo } : {}),
          clientId: c.clientId,
          clientSecret: c.clientSecret,
          pkce: true,
          scopes: ["openid", "email", "profile", ...(c.groupsClaim ? [c.groupsClaim] : [])],
          // The account is the ID token's subject (the token is verified before this is asked).
          accountSubject: ({ tokens }) => String((tokens.idToken ? claimsOf(tokens.idToken)?.sub : undefined) ?? ""),
          // The code exchanged at the token endpoint through `http` (client_secret_post, PKCE), never redirected.
          async getToken({ code, codeVerifier, redirectURI }) {
            const { body, headers } = await authorizationCodeRequest({ code, codeVerifier, redirectURI, options: { clientId: c.clientId, clientSecret: c.clientSecret }, tokenEndpoint: d.token });
            const res = await c.http(d.token, { method: "POST", headers, body: body.toString() });
            if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}`);
            return getOAuth2Tokens(parseJson(res.text, "token answer"));
          },
          // Runs only after better-auth verified the ID token (key set, issuer, audience, nonce): its
          // claims, with userinfo's (same subject) when the token carries no email.
          async getUserInfo(tokens) {
            const claims = tokens.idToken ? claimsOf(tokens.idToken) : null;
            if (!claims || typeof claims.sub !== "string") return null;
            let profile = claims;
            if (typeof claims.email !== "string" && d.userinfo && tokens.accessToken) {
              const res = await c.http(d.userinfo, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
              if (res.status !== 200) return null;
              const info = parseJson(res.text, "userinfo answer");
              if (info.sub !== claims.sub) return null;
              profile = { ...info, ...claims };
            }
            return {
              ...profile,
              id: claims.sub,
              sub: claims.sub,
              email: typeof profile.email === "string" ? profile.email : undefined,
              emailVerified: parseStringBoolean(profile.email_verified as string | boolean | undefined) ?? false,
              name: typeof profile.name === "string" ? profile.name : undefined,
              image: typeof profile.picture === "string" ? profile.picture : undefined,
            };
          },
          mapProfileToUser: (profile: Record<string, unknown>) => {
            if (typeof profile.email === "string") groups.put(key(id, profile.email), groupsOf(profile, c.groupsClaim));
            return {};
          },
        },
      ],
    });
    const built = await plugin.init(context as Parameters<typeof plugin.init>[0]);
    const provider = (built.context.socialProviders as Provider[]).find((p) => p.id === id);
    if (!provider) return;
    // The ID token is verified against the discovered issuer and its key set (fetched through
    // `http`), for this client, with the sign-in's nonce; the callback's `iss` must be the issuer.
    Object.assign(provider, {
      issuer: d.issuer,
      idToken: { jwks: keyFrom(c, d.jwks), issuer: d.issuer, audience: c.clientId, algorithms: d.algorithms },
      requiresIdTokenNonce: true,
    });
    list.unshift(provider);
  }

  return {
    id: "levelrail-sso",
    hooks: {
      before: [
        {
          matcher: (ctx: HookCtx) => !SSO_SESSION_ROUTES.test(ctx.path ?? ""),
          handler: createAuthMiddleware(async (ctx) => {
            const current = await getSessionFromCtx(ctx);
            if ((current?.session as { ssoOrgId?: string | null } | undefined)?.ssoOrgId) {
              throw new APIError("FORBIDDEN", {
                code: "SSO_SESSION_ACCOUNT_CHANGE",
                message: "this session came through an organization's single sign-on and acts only there: nothing of your account is reachable through it; sign in with your password and second factor for that",
              });
            }
          }),
        },
        {
          matcher: (ctx: HookCtx) => orgOfProvider(requested(ctx)) !== null,
          handler: createAuthMiddleware(async (ctx) => {
            const orgId = orgOfProvider(requested(ctx));
            // Only the authorization code flow (PKCE, state and nonce bound to this browser) signs in
            // through a connection: an ID token handed over directly proves nothing of the sort.
            if (orgId && (ctx.body as { idToken?: unknown } | undefined)?.idToken !== undefined) {
              throw new APIError("BAD_REQUEST", { code: "SSO_ID_TOKEN_REFUSED", message: "single sign-on goes through the identity provider's sign-in page; an ID token is not accepted here" });
            }
            if (orgId) await install(ctx.context, orgId);
          }),
        },
      ],
      after: [
        {
          matcher: (ctx: HookCtx) => (ctx.path ?? "").startsWith("/callback/") && orgOfProvider(ctx.params?.id) !== null,
          handler: createAuthMiddleware(async (ctx) => {
            const fresh = ctx.context.newSession;
            const orgId = orgOfProvider(ctx.params?.id);
            if (!fresh || !orgId) return;
            await backend.signedIn({
              orgId,
              userId: fresh.user.id,
              email: fresh.user.email,
              groups: groups.take(key(ssoProviderId(orgId), fresh.user.email)),
              sessionId: fresh.session.id,
              ip: ctx.headers?.get(ipHeader) ?? null,
            });
          }),
        },
      ],
    },
    endpoints: {
      /** `{email}` → `{providerId}`: the connection serving the email's domain (404 when none). */
      ssoProviderForEmail: createAuthEndpoint("/sso/provider", { method: "POST", body: z.object({ email: z.string().max(320) }) }, async (ctx) => {
        const domain = /^[^@\s]+@([^@\s]+)$/.exec(ctx.body.email.trim())?.[1]?.toLowerCase();
        const orgId = domain ? await backend.orgForDomain(domain) : null;
        if (!orgId) throw new APIError("NOT_FOUND", { message: "no organization signs in with single sign-on for this email domain" });
        return ctx.json({ providerId: ssoProviderId(orgId) });
      }),
    },
  } satisfies BetterAuthPlugin;
}

/** The code of a sign-in refused because the email's domain is not one the organization has proven. */
export const EMAIL_DOMAIN_NOT_PROVEN = "email_domain_not_proven";

/** The organization of the SSO sign-in a database write happens in (its callback, or a social sign-in naming it); null: any other request, or none. */
function callbackOrg(ctx: HookCtx | null | undefined): string | null {
  if (!ctx) return null;
  if ((ctx.path ?? "").startsWith("/callback/")) return orgOfProvider(ctx.params?.id);
  if (ctx.path === "/sign-in/social") return orgOfProvider((ctx.body as { provider?: unknown } | undefined)?.provider);
  return null;
}

/** Thrown inside better-auth's callback: it redirects to the sign-in page with `?error=` the code (nothing written). */
const refuse = (message: string) => new APIError("FORBIDDEN", { code: EMAIL_DOMAIN_NOT_PROVEN, message });

/**
 * better-auth's database hooks, the gates of a sign-in through an organization's connection, each
 * run before its write (a refusal writes nothing and opens no session):
 * - a new user: only with an email in a domain the organization has proven;
 * - a new account of the connection: only for a user it has just created or a member of the
 *   organization, whose email is in such a domain (an organization's identity provider cannot sign
 *   in as anybody else's user by asserting their email);
 * - a new session: the same check again (a domain whose proof lapsed or was removed signs in
 *   nobody, even linked), and the session is marked with the organization as it is created, so it
 *   never exists unmarked: it acts in that organization only.
 */
export function ssoGates(backend: SsoBackend) {
  return {
    user: {
      create: {
        async before(user: { email?: unknown }, ctx?: HookCtx | null) {
          const orgId = callbackOrg(ctx);
          if (!orgId) return undefined;
          const problem = await backend.refusal(orgId, { email: typeof user.email === "string" ? user.email : "" });
          if (problem) throw refuse(problem);
          return undefined;
        },
      },
    },
    account: {
      create: {
        async before(account: { providerId: string; userId: string }): Promise<false | undefined> {
          const orgId = orgOfProvider(account.providerId);
          if (!orgId) return undefined;
          const problem = await backend.refusal(orgId, { userId: account.userId });
          if (problem) throw refuse(problem);
          return (await backend.mayLink(orgId, account.userId)) ? undefined : false;
        },
      },
    },
    session: {
      create: {
        async before(session: { userId: string }, ctx?: HookCtx | null) {
          const orgId = callbackOrg(ctx);
          if (!orgId) return undefined;
          const problem = await backend.refusal(orgId, { userId: session.userId });
          if (problem) throw refuse(problem);
          return { data: { ssoOrgId: orgId } };
        },
      },
    },
  };
}
