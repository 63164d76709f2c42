import type { BetterAuthPlugin } from "better-auth";
import { APIError, createAuthEndpoint, createAuthMiddleware } from "better-auth/api";
import { genericOAuth } from "better-auth/plugins";
import { z } from "zod";

/**
 * Single sign-on with OpenID Connect, one connection per organization, through better-auth's
 * `genericOAuth` provider (discovery, authorization code with PKCE, `state` bound to the browser,
 * the ID token verified against the issuer's JWKS with its `nonce`). Its providers are fixed when
 * the auth instance starts, while ours live in the database with a sealed secret and change at any
 * time: so before each sign-in and callback through `sso-<orgId>`, the organization's connection
 * is read (the secret opened), built by `genericOAuth` itself, and put in place of any older one.
 */

/** What the auth layer needs from the caller (the web app wires it to the services). */
export interface SsoBackend {
  /** The organization's connection with its client secret opened, or null when it has none. */
  connection(orgId: string): Promise<SsoClient | null>;
  /** The organization whose connection serves this email domain, or null. */
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
    const plugin = genericOAuth({
      config: [
        {
          providerId: id,
          discoveryUrl: `${c.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
          clientId: c.clientId,
          clientSecret: c.clientSecret,
          pkce: true,
          requireIdTokenVerification: true,
          scopes: ["openid", "email", "profile", ...(c.groupsClaim ? [c.groupsClaim] : [])],
          mapProfileToUser: (profile: Record<string, unknown>) => {
            if (typeof profile.email === "string") groups.put(key(id, profile.email), groupsOf(profile, c.groupsClaim));
            return {};
          },
        },
      ],
    });
    const built = await plugin.init(context as Parameters<typeof plugin.init>[0]);
    const provider = (built.context.socialProviders as Provider[]).find((p) => p.id === id);
    if (provider) list.unshift(provider);
  }

  return {
    id: "levelrail-sso",
    hooks: {
      before: [
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
