import { z } from "zod";
import { GIT_PROVIDERS } from "./lists";
import { envKey, resourceName } from "./rules";

/**
 * A service's git source and the credentials that reach it (docs/operating/git-builds-and-previews.md#git-sources-and-credentials), checked without
 * connecting anywhere: every value here ends up in an argument array of a git or BuildKit call, so
 * nothing that git would read as an option, a transport helper or a local path gets through.
 */

/** Why `url` is not a repository URL the product fetches from, or null when it is. */
export function badRepositoryUrl(url: string): string | null {
  if (url.startsWith("-")) return "must not start with '-'";
  // `ext::cmd`, `fd::3`, any `<transport>::<address>`: git runs a remote helper (its test, transport.c).
  if (/^[A-Za-z0-9._~-]*::/.test(url)) return "transport helpers (ext::, fd::, …) are not allowed; use https://, http://, ssh:// or user@host:path";
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f]/.test(url)) return "must not contain spaces or control characters";
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    if (!["https", "http", "ssh"].includes(scheme)) return `${scheme}:// is not allowed; use https://, http://, ssh:// or user@host:path`;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return "must be a URL like https://git.example.com/team/shop.git";
    }
    if (!u.hostname) return "must name a host";
    if (u.password) return "must not carry a password; add a git credential and name it in credentialId";
    // A user name alone is how ssh:// says who to log in as (git@…); over http(s) it is a token in disguise.
    if (u.username && scheme !== "ssh") return "must not carry a user name or token; add a git credential and name it in credentialId";
    if (u.pathname === "/" || u.pathname === "") return "must name a repository path";
    return null;
  }
  // scp-like: user@host:path (git reads `host:path` as ssh only before the first slash).
  const scp = /^([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\]):(.+)$/.exec(url);
  if (scp) {
    const path = scp[3] ?? "";
    if (path.startsWith("-")) return "must not have a path starting with '-'";
    return null;
  }
  if (url.startsWith("/") || url.startsWith(".") || url.startsWith("~") || /^[a-z]:[\\/]/i.test(url)) return "a local path is not a repository the product can fetch; use https://, http://, ssh:// or user@host:path";
  return "must be https://…, http://…, ssh://… or user@host:path";
}

export const repositoryUrl = z
  .string({ error: "must be a string" })
  .trim()
  .min(1, "is required")
  .max(2048, "must be at most 2048 characters")
  .superRefine((url, c) => {
    const why = badRepositoryUrl(url);
    if (why) c.addIssue({ code: "custom", message: why });
  });

/** Why `ref` is not a name `git check-ref-format --allow-onelevel` accepts (or starts with '-'), or null. */
export function badRef(ref: string): string | null {
  if (ref.startsWith("-")) return "must not start with '-'";
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return "must not contain spaces, control characters or any of ~ ^ : ? * [ \\";
  if (ref.includes("..")) return "must not contain '..'";
  if (ref.includes("@{")) return "must not contain '@{'";
  if (ref === "@") return "must not be '@'";
  if (ref.startsWith("/") || ref.endsWith("/") || ref.includes("//")) return "must not start or end with '/' or contain '//'";
  if (ref.endsWith(".")) return "must not end with '.'";
  for (const part of ref.split("/")) {
    if (part.startsWith(".")) return "no part may start with '.'";
    if (part.endsWith(".lock")) return "no part may end with '.lock'";
  }
  return null;
}

export const gitRef = z
  .string({ error: "must be a string" })
  .min(1, "is required")
  .max(255, "must be at most 255 characters")
  .superRefine((ref, c) => {
    const why = badRef(ref);
    if (why) c.addIssue({ code: "custom", message: `must be a branch or tag name: ${why}` });
  });

/** Why `p` is not a relative path inside the repository, or null. */
export function badRelativePath(p: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(p)) return "must not contain control characters";
  if (p.startsWith("/") || p.startsWith("\\") || /^[a-z]:/i.test(p)) return "must be relative to the repository's root";
  if (p.startsWith("-")) return "must not start with '-'";
  if (p.split(/[\\/]/).includes("..")) return "must not contain '..' segments";
  return null;
}

const relativePath = (what: string) =>
  z
    .string({ error: "must be a string" })
    .min(1, "is required")
    .max(1024, "must be at most 1024 characters")
    .superRefine((p, c) => {
      const why = badRelativePath(p);
      if (why) c.addIssue({ code: "custom", message: `${why} (${what})` });
    });

export const MIN_POLL_SECONDS = 60;
export const MAX_POLL_SECONDS = 86_400;

/** A Dockerfile stage name (`FROM … AS <target>`). */
const stageName = z
  .string({ error: "must be a string" })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, "must be a Dockerfile stage name (letters, digits, '.', '_' or '-')");

/**
 * Build args the engine's Dockerfile frontend reads as its own options (`BUILDKIT_CACHE_MOUNT_NS`,
 * which walls each service's cache mounts off; `BUILDKIT_SYNTAX`, which picks another frontend; …):
 * never a tenant's.
 */
export const reservedBuildArg = (key: string) => /^BUILDKIT_/i.test(key);

export { GIT_PROVIDERS };
export type GitProviderName = (typeof GIT_PROVIDERS)[number];

/**
 * Why `url` is not a provider API's base URL as written, or null (the installation's address policy,
 * and plain http only where it allows private targets, are the service layer's: `providerApiProblem`).
 */
export function badApiUrl(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be the API's base URL, like https://api.github.com or https://gitea.example.com/api/v1";
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") return "must be an https:// URL";
  if (u.username || u.password) return "must not carry credentials; name a token in apiCredentialId";
  if (u.search || u.hash) return "must not have a query or fragment";
  return null;
}

const apiUrl = z
  .string({ error: "must be a URL" })
  .trim()
  .min(1, "is required")
  .max(2048, "must be at most 2048 characters")
  .superRefine((url, c) => {
    const why = badApiUrl(url);
    if (why) c.addIssue({ code: "custom", message: why });
  });

/** A source's provider API is all or nothing: a provider needs its URL, a URL or a token needs a provider. */
export function providerApiIssues(g: { apiProvider: string | null; apiUrl: string | null; apiCredentialId?: string | null; apiCredential?: string | null }): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  if (g.apiProvider !== null && g.apiUrl === null) out.push({ path: "apiUrl", message: `is required with apiProvider ${g.apiProvider}: the API's base URL` });
  if (g.apiProvider === null && g.apiUrl !== null) out.push({ path: "apiProvider", message: `is required with apiUrl: one of ${GIT_PROVIDERS.join(", ")}` });
  const credentialKey = g.apiCredential !== undefined ? "apiCredential" : "apiCredentialId";
  const credential = g.apiCredential !== undefined ? g.apiCredential : g.apiCredentialId;
  if (g.apiProvider === null && credential !== null && credential !== undefined) out.push({ path: credentialKey, message: "needs apiProvider and apiUrl: the token is sent to that API" });
  return out;
}

/** The fields of a service's git source, before the check across them (the spec swaps ids for names). */
export const gitSourceFields = z
  .object({
    url: repositoryUrl,
    ref: gitRef.default("main"),
    path: relativePath("the build context, like . or services/web").default("."),
    dockerfile: relativePath("the Dockerfile inside the context, like Dockerfile").default("Dockerfile"),
    credentialId: z.string({ error: "must be a git credential id" }).uuid("must be a git credential id").nullable().default(null),
    /** Environment keys passed as build args: opt-in, so nothing per build reaches the cache key. */
    buildArgs: z
      .array(envKey)
      .max(100, "must list at most 100 keys")
      .refine((ks) => new Set(ks).size === ks.length, "must not list a key twice")
      .superRefine((ks, c) => {
        const reserved = ks.find(reservedBuildArg);
        if (reserved) c.addIssue({ code: "custom", message: `must not list ${reserved}: BUILDKIT_* build args are the build engine's own options` });
      })
      .default([]),
    target: stageName.nullable().default(null),
    pollIntervalSeconds: z
      .number({ error: "must be a number of seconds or null" })
      .int("must be a whole number of seconds")
      .min(MIN_POLL_SECONDS, `must be at least ${MIN_POLL_SECONDS} seconds (or null: webhooks only)`)
      .max(MAX_POLL_SECONDS, `must be at most ${MAX_POLL_SECONDS} seconds (one day)`)
      .nullable()
      .default(null),
    /** The provider's API (optional): previews list the repository's open requests there and post commit statuses. */
    apiProvider: z.enum(GIT_PROVIDERS, { error: `must be ${GIT_PROVIDERS.join(", ")} or null (no provider API)` }).nullable().default(null),
    /** Its base URL: `https://api.github.com`, `https://gitea.example.com/api/v1`, `https://gitlab.example.com/api/v4`. */
    apiUrl: apiUrl.nullable().default(null),
    /** A token credential of the organization sent to that API; null: calls without one. */
    apiCredentialId: z.string({ error: "must be a git credential id" }).uuid("must be a git credential id").nullable().default(null),
  })
  .strict();

/** A service's git source as the API, the form and the spec take it; fields left out get their defaults. */
export const gitSourceInput = gitSourceFields.superRefine((g, c) => {
  for (const i of providerApiIssues(g)) c.addIssue({ code: "custom", path: [i.path], message: i.message });
});
export type GitSourceInput = z.infer<typeof gitSourceInput>;

/** The webhook route of a git source (docs/operating/git-builds-and-previews.md#the-webhook-what-to-paste-into-the-forge): providers post pushes and pull requests here. */
export const webhookPath = (sourceId: string) => `/api/v1/hooks/git/${sourceId}`;

/** A service's git source as the API answers it: never its webhook secret, except once in `webhookSecret`. */
export interface GitSourceView extends GitSourceInput {
  sourceId: string;
  /** `/api/v1/hooks/git/<sourceId>`, to put after the panel's public URL. */
  webhookPath: string;
  /** The last failure to reach the repository, written by the build controller; "" once reached. */
  lastError: string;
  lastSeenCommit: string | null;
  /** Only in the answer that made it (create, a switch to git, a rotation): shown once, never again. */
  webhookSecret?: string;
}

export type SourceView = { image: string } | { git: GitSourceView };

/** Where a repository URL connects: its host (lower case, no brackets, no trailing dot) and port. */
export interface RepositoryEndpoint {
  scheme: "https" | "http" | "ssh";
  host: string;
  port: number;
}

const DEFAULT_PORTS = { https: 443, http: 80, ssh: 22 } as const;
const HOST_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
const IPV6 = /^[0-9a-f:.]+$/;
const cleanHost = (h: string) => h.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "").toLowerCase();

/**
 * The host and port a repository URL connects to, read strictly (one reading for the panel, the
 * worker and git alike): the authority may hold only a user name (ssh), a DNS name or an IP address
 * (IPv6 in brackets) and a port; a backslash, `?` or `#` before the path, or any other character
 * that two URL parsers could read as two different hosts, answers null.
 */
export function repositoryEndpoint(url: string): RepositoryEndpoint | null {
  if (url.includes("\\")) return null;
  const full = /^(https?|ssh):\/\/(?:([A-Za-z0-9._~-]+)@)?([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?\/[^\s]*$/i.exec(url);
  const scp = full ? null : /^[A-Za-z0-9._-]+@([A-Za-z0-9.-]+):\S+$/.exec(url);
  const scheme = (full ? full[1]!.toLowerCase() : "ssh") as RepositoryEndpoint["scheme"];
  const raw = full ? full[3] : scp?.[1];
  if (raw === undefined) return null;
  const host = cleanHost(raw);
  if (raw.startsWith("[") ? !IPV6.test(host) : !HOST_NAME.test(host)) return null;
  const port = full?.[4] === undefined ? DEFAULT_PORTS[scheme] : Number(full[4]);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return null;
  return { scheme, host, port };
}

/** Why `entry` is not a host a credential may be sent to (`github.com`, `git.example.com:8443`, `[2001:db8::1]`), or null. */
export function badCredentialHost(entry: string): string | null {
  const m = /^([^:[\]]+|\[[^\]]+\])(?::([0-9]{1,5}))?$/.exec(entry);
  if (!m) return "must be a host name like github.com, optionally with :port (not a URL)";
  const host = cleanHost(m[1]!);
  if (m[1]!.startsWith("[") ? !IPV6.test(host) : !HOST_NAME.test(host)) return "must be a host name like github.com, optionally with :port (not a URL)";
  if (m[2] !== undefined && (Number(m[2]) < 1 || Number(m[2]) > 65_535)) return "must have a port from 1 to 65535";
  return null;
}

/** A credential's host entry read back: its host and, when it names one, the only port it allows. */
function hostEntry(entry: string): { host: string; port: number | null } | null {
  if (badCredentialHost(entry)) return null;
  const m = /^([^:[\]]+|\[[^\]]+\])(?::([0-9]{1,5}))?$/.exec(entry)!;
  return { host: cleanHost(m[1]!), port: m[2] === undefined ? null : Number(m[2]) };
}

/**
 * Why a credential may not travel over `to`'s transport, or null: a token is never sent over plain
 * `http://` (anyone on the path reads it, and may replay it to its host), unless the installation
 * allows private targets (`allowPlainHttp`: LEVELRAIL_ALLOW_PRIVATE_TARGETS, as a test's repository
 * on loopback needs). A deploy key's private half never leaves the worker.
 */
export function tokenOverPlainHttp(c: { kind: GitCredentialKind }, to: Partial<Pick<RepositoryEndpoint, "scheme">>, allowPlainHttp: boolean): string | null {
  if (c.kind !== "token" || to.scheme !== "http" || allowPlainHttp) return null;
  return "a token is never sent over plain http://; use the repository's https:// URL";
}

/**
 * Whether a credential bound to `hosts` may be sent to `to`: one entry names its host (any port, or
 * exactly the entry's). A deploy key with no hosts goes anywhere (its private half never leaves the
 * worker; a server learns only a signature bound to its own session); a token with none goes nowhere.
 * When `to` names its scheme, a token never goes over plain `http://` unless `allowPlainHttp`
 * (`tokenOverPlainHttp`).
 */
export function credentialMayReach(
  c: { kind: GitCredentialKind; hosts: readonly string[] },
  to: Pick<RepositoryEndpoint, "host" | "port"> & Partial<Pick<RepositoryEndpoint, "scheme">>,
  o: { allowPlainHttp?: boolean } = {},
): boolean {
  if (tokenOverPlainHttp(c, to, o.allowPlainHttp === true)) return false;
  if (c.kind === "ssh" && c.hosts.length === 0) return true;
  return c.hosts.some((entry) => {
    const e = hostEntry(entry);
    return e !== null && e.host === to.host && (e.port === null || e.port === to.port);
  });
}

/** The hosts a credential may be sent to, as written on it (lower case, no trailing dot), each once. */
const credentialHosts = z
  .array(
    z
      .string({ error: "must be a host name" })
      .trim()
      .toLowerCase()
      .max(260, "must be at most 260 characters")
      .superRefine((h, c) => {
        const why = badCredentialHost(h);
        if (why) c.addIssue({ code: "custom", message: why });
      })
      .transform((h) => h.replace(/\.(?=:[0-9]+$|$)/, "")),
    { error: "must be a list of host names" },
  )
  .max(20, "must list at most 20 hosts")
  .refine((hs) => new Set(hs).size === hs.length, "must not list a host twice");

export const GIT_CREDENTIAL_KINDS = ["ssh", "token"] as const;
export type GitCredentialKind = (typeof GIT_CREDENTIAL_KINDS)[number];

const credentialName = resourceName;

/** A new git credential: a deploy key the product generates, or an HTTPS token it seals. */
export const gitCredentialInput = z.discriminatedUnion(
  "kind",
  [
    /** A deploy key: `hosts` optional (none: any host, see credentialMayReach). */
    z.object({ kind: z.literal("ssh"), name: credentialName, hosts: credentialHosts.default([]), orgId: z.string().uuid().optional() }).strict(),
    z
      .object({
        kind: z.literal("token"),
        name: credentialName,
        token: z
          .string({ error: "is required" })
          .min(1, "is required")
          .max(4096, "must be at most 4096 characters")
          // eslint-disable-next-line no-control-regex
          .refine((t) => !/[\s\x00-\x1f\x7f]/.test(t), "must not contain spaces or control characters"),
        /** Sent with the token over HTTPS; GitHub takes `x-access-token`, GitLab `oauth2`, Gitea any user. */
        username: z
          .string({ error: "must be a string" })
          .regex(/^[A-Za-z0-9._@+-]{1,255}$/, "must be a user name (letters, digits, '.', '_', '@', '+' or '-')")
          .optional(),
        /** The hosts git (and a provider API) may send the token to: required, so it never reaches a host a source merely names. */
        hosts: credentialHosts.min(1, "must list at least one host the token may be sent to, like github.com"),
        orgId: z.string().uuid().optional(),
      })
      .strict(),
  ],
  { error: "must be ssh (a generated deploy key) or token (an HTTPS token)" },
);
export type GitCredentialInput = z.infer<typeof gitCredentialInput>;

/** A git credential as the API answers it: never the private key or the token. */
export interface GitCredentialView {
  id: string;
  name: string;
  kind: GitCredentialKind;
  /** `ssh-ed25519 AAAA… levelrail-<name>` for a deploy key, to add to the repository; null for a token. */
  publicKey: string | null;
  username: string | null;
  /** The hosts it may be sent to (`host` any port, `host:port` that port only); a deploy key with none: any host. */
  hosts: string[];
  createdAt: string;
}
