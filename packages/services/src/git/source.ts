import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { gitCredential, gitSource } from "@levelrail/db/schema/git";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { type GitSourceInput, type GitSourceView, type SourceView, credentialMayReach, repositoryEndpoint, tokenOverPlainHttp, webhookPath } from "@levelrail/spec/git";
import type { ServiceSource } from "@levelrail/spec/service";
import { enqueueBuild } from "../build/enqueue";
import { type Ctx, scope, targetPolicy } from "../context";
import { type ResolvedAddress, type TargetPolicy, TargetError, bareHost, policyProblem, resolveTarget, systemLookup } from "../notifications/address";

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type GitSourceRow = typeof gitSource.$inferSelect;
type ServiceRow = typeof service.$inferSelect;

/** A webhook secret: 32 random bytes, hex. Sealed before it is stored; shown once. */
export const newWebhookSecret = () => randomBytes(32).toString("hex");

/** The source a service shows: its git source (never its secret, but `secret` once), or its image. */
export function sourceView(s: Pick<ServiceRow, "image">, git: GitSourceRow | null, secret?: string): SourceView {
  if (!git) return { image: s.image };
  const view: GitSourceView = {
    ...gitFieldsOf(git),
    sourceId: git.id,
    webhookPath: webhookPath(git.id),
    lastError: git.lastError,
    lastSeenCommit: git.lastSeenCommit,
  };
  if (secret !== undefined) view.webhookSecret = secret;
  return { git: view };
}

/** The operator's fields of a stored source, as the API takes them. */
export function gitFieldsOf(git: GitSourceRow): GitSourceInput {
  return {
    url: git.url,
    ref: git.ref,
    path: git.path,
    dockerfile: git.dockerfile,
    credentialId: git.credentialId,
    buildArgs: git.buildArgs,
    target: git.target,
    pollIntervalSeconds: git.pollIntervalSeconds,
    apiProvider: git.apiProvider,
    apiUrl: git.apiUrl,
    apiCredentialId: git.apiCredentialId,
  };
}

/** The git sources of these services, by service id (scoped to the caller's organizations). */
export async function gitSourcesOf(db: Ctx["db"] | Tx, ctx: Ctx, serviceIds: string[]): Promise<Map<string, GitSourceRow>> {
  if (!serviceIds.length) return new Map();
  const rows = await db.select().from(gitSource).where(and(inArray(gitSource.serviceId, serviceIds), inArray(gitSource.orgId, scope(ctx))));
  return new Map(rows.map((r) => [r.serviceId, r]));
}

const sourceField = (field: string, message: string) => new LevelrailError("invalid_input", `source.git.${field}: ${message}`, { field: `source.git.${field}` });
const credentialField = (message: string) => sourceField("credentialId", message);

/**
 * Why a provider API's base URL is refused by the installation, as written (no connection): HTTPS,
 * plain HTTP only where private targets are allowed (a test's API on loopback), and a host the
 * address policy allows, as an OpenID issuer's or a webhook's. Null: allowed.
 */
export function providerApiProblem(url: string, policy: TargetPolicy): string | null {
  const u = new URL(url);
  if (u.protocol !== "https:" && !(u.protocol === "http:" && policy.allowPrivate)) return "must be an https:// URL";
  return policyProblem(u.hostname, policy);
}

/** How long the check of a source's URL waits for its host's name to resolve. */
const LOOKUP_DEADLINE_MS = 2_000;

/**
 * Why the installation's address policy refuses the repository's host: as written (a loopback name,
 * an address that is not public, the panel's own host), then each address its name resolves to now.
 * A name that does not resolve (yet) is not refused here: the worker resolves it again before each
 * git call, pins git to the address it checked, and says why it cannot reach it.
 */
export async function repositoryHostProblem(hostname: string, policy: TargetPolicy): Promise<string | null> {
  const host = bareHost(hostname);
  const literal = policyProblem(host, policy);
  if (literal || policy.allowPrivate || isIP(host)) return literal;
  const lookup = policy.lookup ?? systemLookup;
  let addresses: ResolvedAddress[];
  try {
    addresses = await Promise.race([lookup(host), new Promise<never>((_, reject) => setTimeout(() => reject(new Error("lookup deadline")), LOOKUP_DEADLINE_MS).unref())]);
  } catch {
    return null;
  }
  if (!addresses.length) return null;
  try {
    await resolveTarget(host, { ...policy, lookup: (h) => (h === host ? Promise.resolve(addresses) : lookup(h)) });
    return null;
  } catch (err) {
    if (err instanceof TargetError) return err.message;
    throw err;
  }
}

const hostList = (hosts: readonly string[]) => (hosts.length ? hosts.join(", ") : "no host");

/**
 * A source's URL must name its host plainly (one reading for the panel, the worker and git) and a
 * host the installation's address policy lets the worker reach. A credential must be one of the
 * service's own organization, fit the URL (a deploy key goes over SSH: `ssh://`, `user@host:path`;
 * a token over HTTPS, plain HTTP only where private targets are allowed: `tokenOverPlainHttp`) and be
 * bound to the URL's host. The provider API's URL must be one the
 * installation lets the panel call, and its credential a token of the same organization bound to
 * that API's host. 400 naming the field otherwise.
 */
export async function checkGitSource(ctx: Ctx, orgId: string, source: ServiceSource | undefined): Promise<void> {
  const git = source?.git;
  if (!git) return;
  const endpoint = repositoryEndpoint(git.url);
  if (!endpoint) throw sourceField("url", "must name its host as a DNS name or an IP address (IPv6 in brackets), with no characters another URL reader could take for a different host");
  const refused = await repositoryHostProblem(endpoint.host, targetPolicy(ctx));
  if (refused) throw sourceField("url", refused);
  if (git.credentialId) {
    const [c] = await ctx.db
      .select({ kind: gitCredential.kind, name: gitCredential.name, hosts: gitCredential.hosts })
      .from(gitCredential)
      .where(and(eq(gitCredential.id, git.credentialId), eq(gitCredential.orgId, orgId)));
    if (!c) throw credentialField("no such git credential in this organization");
    const overHttp = /^https?:\/\//i.test(git.url);
    if (c.kind === "ssh" && overHttp) throw credentialField("a deploy key needs an SSH URL (ssh://… or git@host:path); for an https:// URL use a token");
    if (c.kind === "token" && !overHttp) throw credentialField("a token goes over HTTPS; use the repository's https:// URL, or a deploy key for this SSH one");
    const allowPlainHttp = targetPolicy(ctx).allowPrivate;
    const plain = tokenOverPlainHttp(c, endpoint, allowPlainHttp);
    if (plain) throw sourceField("url", plain);
    if (!credentialMayReach(c, endpoint, { allowPlainHttp })) {
      throw credentialField(`git credential ${c.name} may be sent only to ${hostList(c.hosts)}, not to ${endpoint.host}:${endpoint.port}; use a credential made for that host`);
    }
  }
  if (git.apiUrl) {
    const why = providerApiProblem(git.apiUrl, targetPolicy(ctx));
    if (why) throw sourceField("apiUrl", why);
  }
  if (git.apiCredentialId) {
    const [c] = await ctx.db
      .select({ kind: gitCredential.kind, name: gitCredential.name, hosts: gitCredential.hosts })
      .from(gitCredential)
      .where(and(eq(gitCredential.id, git.apiCredentialId), eq(gitCredential.orgId, orgId)));
    if (!c) throw sourceField("apiCredentialId", "no such git credential in this organization");
    if (c.kind !== "token") throw sourceField("apiCredentialId", "must be a token (a deploy key cannot call the provider's API)");
    // The schema lets a token name no provider API only without apiUrl, which it refuses above.
    if (git.apiUrl) {
      const api = new URL(git.apiUrl);
      const to = { host: bareHost(api.hostname), port: Number(api.port || (api.protocol === "http:" ? 80 : 443)) };
      if (!credentialMayReach(c, to)) throw sourceField("apiCredentialId", `git credential ${c.name} may be sent only to ${hostList(c.hosts)}, not to ${to.host}:${to.port}; use a credential made for the API's host`);
    }
  }
}

/** What a build reads: a change of any of these builds again. */
const BUILD_FIELDS = ["url", "ref", "path", "dockerfile", "credentialId", "buildArgs", "target"] as const;
const buildChanged = (a: GitSourceInput, b: GitSourceInput) => BUILD_FIELDS.some((f) => JSON.stringify(a[f]) !== JSON.stringify(b[f]));

/**
 * Queues a build of the service's source (trigger `manual`, the ref resolved when it starts). The
 * build's own key is woken by the builds controller's resync; its NOTIFY (`build:<id>`) is added
 * where the build keys live (packages/spec/src/keys.ts, the builds work).
 */
export async function queueSourceBuild(ctx: Ctx, tx: Tx, s: Pick<ServiceRow, "id" | "orgId">, ref: string) {
  return enqueueBuild(tx, { orgId: s.orgId, serviceId: s.id, commit: null, ref, trigger: "manual", createdBy: ctx.actor.email });
}

export interface SourceWrite {
  git: GitSourceRow | null;
  /** The new webhook secret, when this write made one (shown once). */
  secret?: string;
  /** The image the service takes (a switch to `{image}`), if any. */
  image?: string;
}

/**
 * Makes the service's source `next` inside the caller's transaction: `{image}` deletes any git
 * source; `{git}` creates one (a new webhook secret, a first build queued) or updates the one there
 * (its id and secret kept; a build queued when something a build reads changed). `next` undefined
 * leaves it as it is.
 */
export async function writeSource(ctx: Ctx, tx: Tx, s: Pick<ServiceRow, "id" | "orgId">, current: GitSourceRow | null, next: ServiceSource | undefined): Promise<SourceWrite> {
  if (!next) return { git: current };
  if (next.git === undefined) {
    if (current) await tx.delete(gitSource).where(and(eq(gitSource.id, current.id), eq(gitSource.orgId, s.orgId)));
    return { git: null, ...(next.image === undefined ? {} : { image: next.image }) };
  }
  const fields = next.git;
  if (current) {
    const [row] = await tx
      .update(gitSource)
      .set({ ...fields, updatedAt: new Date() })
      .where(and(eq(gitSource.id, current.id), eq(gitSource.orgId, s.orgId)))
      .returning();
    if (buildChanged(gitFieldsOf(current), fields)) await queueSourceBuild(ctx, tx, s, fields.ref);
    return { git: row! };
  }
  const secret = newWebhookSecret();
  const [row] = await tx
    .insert(gitSource)
    .values({ ...fields, orgId: s.orgId, serviceId: s.id, webhookSecretSealed: ctx.kit.keyring.seal(secret) })
    .returning();
  await queueSourceBuild(ctx, tx, s, fields.ref);
  return { git: row!, secret };
}

/** Gives the source a new webhook secret (the old one stops working at once); answers it once. */
export async function rotateSecret(ctx: Ctx, tx: Tx, git: GitSourceRow): Promise<string> {
  const secret = newWebhookSecret();
  await tx
    .update(gitSource)
    .set({ webhookSecretSealed: ctx.kit.keyring.seal(secret), updatedAt: new Date() })
    .where(and(eq(gitSource.id, git.id), eq(gitSource.orgId, git.orgId)));
  return secret;
}

/**
 * An environment's clone copies its services' git sources (`ids`: source service id → copy's id),
 * each with a new webhook secret (a provider's hook for the original must not build the copy), no
 * last error and no commit seen yet. Nothing is built: the clone runs the images it copied until asked.
 */
export async function copyGitSources(ctx: Ctx, tx: Tx, orgId: string, ids: Map<string, string>): Promise<void> {
  if (!ids.size) return;
  const rows = await tx.select().from(gitSource).where(and(inArray(gitSource.serviceId, [...ids.keys()]), eq(gitSource.orgId, orgId)));
  for (const g of rows) {
    await tx.insert(gitSource).values({ ...gitFieldsOf(g), orgId, serviceId: ids.get(g.serviceId)!, webhookSecretSealed: ctx.kit.keyring.seal(newWebhookSecret()) });
  }
}
