// Every route of the HTTP API (docs/api.md), method and path, in one place. The tenancy spec calls
// each one as another organization and fails when a route file exists without its entry here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

/** The ids and names a path or body is filled with: one organization's real ones, or random ones. */
export interface Ids {
  orgId: string;
  projectId: string;
  envId: string;
  app: string;
  service: string;
  key: string;
  hookRunId: string;
  backupTargetId: string;
  registryCredentialId: string;
  /** A git credential of the organization (a deploy key), used by no source. */
  gitCredentialId: string;
  tokenId: string;
  /** A database's name, one of its backups and a volume it keeps. */
  database: string;
  backupId: string;
  /** A finished build of the service. */
  buildId: string;
  volume: string;
  notificationChannelId: string;
  /** The service's id (metrics filter by it; the services list pages from one). */
  serviceId: string;
  /** A fork's preview waiting for approval of head commit `b…b`; unset: a preview of nothing. */
  previewId?: string;
}

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";

export interface ApiRoute {
  method: Method;
  /** With `{param}` placeholders named like the route folders (`[envId]` → `{envId}`). */
  path: string;
  /**
   * `owned`: the path names a resource of one organization, and another organization must get
   * exactly what a nonexistent one gets. `input`: the resource is named in the body or query.
   * `own`: it acts on the caller's own things only (nothing of another organization to name).
   * `gone`: a flat route from before environments (410). `unrouted`: a catch-all answering 404 for
   * paths no route serves, whatever ids they hold.
   */
  kind: "owned" | "input" | "own" | "gone" | "unrouted";
  body?: (ids: Ids) => unknown;
  query?: (ids: Ids) => Record<string, string>;
}

const S = "/api/v1/environments/{envId}/services/{service}";
const D = "/api/v1/environments/{envId}/databases/{db}";

export const API_ROUTES: ApiRoute[] = [
  { method: "GET", path: "/api/v1/orgs", kind: "own" },
  { method: "POST", path: "/api/v1/orgs", kind: "own" },
  { method: "GET", path: "/api/v1/orgs/{id}/env", kind: "owned" },
  { method: "PUT", path: "/api/v1/orgs/{id}/env", kind: "owned", body: () => ({ vars: { X: "1" } }) },
  { method: "GET", path: "/api/v1/orgs/{id}/quotas", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/audit", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/members", kind: "owned" },
  { method: "PATCH", path: "/api/v1/orgs/{id}/members/{userId}", kind: "owned", body: () => ({ role: "viewer" }) },
  { method: "DELETE", path: "/api/v1/orgs/{id}/members/{userId}", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/invitations", kind: "owned" },
  { method: "POST", path: "/api/v1/orgs/{id}/invitations", kind: "owned", body: () => ({ email: "intruder@example.test", role: "owner" }) },
  { method: "DELETE", path: "/api/v1/orgs/{id}/invitations/{invitationId}", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/git-credentials", kind: "owned" },
  { method: "POST", path: "/api/v1/orgs/{id}/git-credentials", kind: "owned", body: () => ({ name: "intruder", kind: "ssh" }) },
  { method: "DELETE", path: "/api/v1/orgs/{id}/git-credentials/{credId}", kind: "owned" },
  // The token names the invitation: a random one is an invitation of nothing, whoever asks.
  { method: "POST", path: "/api/v1/invitations/accept", kind: "input", body: () => ({ token: "A".repeat(43) }) },
  { method: "GET", path: "/api/v1/orgs/{id}/sso", kind: "owned" },
  {
    method: "PUT",
    path: "/api/v1/orgs/{id}/sso",
    kind: "owned",
    body: (i) => ({ issuer: "https://id.example.com", clientId: "panel", clientSecret: "s3cret-value", domain: `sso-${i.orgId.slice(0, 8)}.example.com` }),
  },
  { method: "DELETE", path: "/api/v1/orgs/{id}/sso", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/sso/domains", kind: "owned" },
  { method: "POST", path: "/api/v1/orgs/{id}/sso/domains", kind: "owned", body: (i) => ({ domain: ssoDomainOf(i) }) },
  { method: "POST", path: "/api/v1/orgs/{id}/sso/domains/{domain}/check", kind: "owned" },
  { method: "DELETE", path: "/api/v1/orgs/{id}/sso/domains/{domain}", kind: "owned" },
  { method: "GET", path: "/api/v1/orgs/{id}/security", kind: "owned" },
  { method: "PUT", path: "/api/v1/orgs/{id}/security", kind: "owned", body: () => ({ require2fa: false }) },
  { method: "DELETE", path: "/api/v1/orgs/{id}/members/{userId}/two-factor", kind: "owned" },
  { method: "DELETE", path: "/api/v1/orgs/{id}/members/{userId}/sessions", kind: "owned" },
  { method: "GET", path: "/api/v1/account", kind: "own" },
  { method: "GET", path: "/api/v1/sessions", kind: "own" },
  { method: "DELETE", path: "/api/v1/sessions", kind: "own" },
  { method: "DELETE", path: "/api/v1/sessions/{id}", kind: "own" },
  { method: "GET", path: "/api/v1/projects", kind: "own" },
  { method: "POST", path: "/api/v1/projects", kind: "input", body: (i) => ({ name: "intruder", orgId: i.orgId }) },
  { method: "GET", path: "/api/v1/projects/{id}", kind: "owned" },
  { method: "DELETE", path: "/api/v1/projects/{id}", kind: "owned" },
  { method: "GET", path: "/api/v1/projects/{id}/env", kind: "owned" },
  { method: "PUT", path: "/api/v1/projects/{id}/env", kind: "owned", body: () => ({ vars: { X: "1" } }) },
  { method: "GET", path: "/api/v1/projects/{id}/environments", kind: "owned" },
  { method: "POST", path: "/api/v1/projects/{id}/environments", kind: "owned", body: () => ({ name: "intruder" }) },
  { method: "GET", path: "/api/v1/environments/{envId}", kind: "owned" },
  { method: "DELETE", path: "/api/v1/environments/{envId}", kind: "owned" },
  { method: "GET", path: "/api/v1/environments/{envId}/env", kind: "owned" },
  { method: "PUT", path: "/api/v1/environments/{envId}/env", kind: "owned", body: () => ({ vars: { X: "1" } }) },
  { method: "GET", path: "/api/v1/environments/{envId}/apps", kind: "owned" },
  { method: "POST", path: "/api/v1/environments/{envId}/apps", kind: "owned", body: () => ({ name: "intruder" }) },
  { method: "GET", path: "/api/v1/environments/{envId}/apps/{app}", kind: "owned" },
  { method: "DELETE", path: "/api/v1/environments/{envId}/apps/{app}", kind: "owned" },
  { method: "GET", path: "/api/v1/environments/{envId}/apps/{app}/hook-runs", kind: "owned" },
  { method: "GET", path: "/api/v1/environments/{envId}/services", kind: "owned" },
  {
    method: "POST",
    path: "/api/v1/environments/{envId}/services",
    kind: "owned",
    body: (i) => ({ name: "intruder", app: i.app, image: "nginx:1", port: 80 }),
  },
  { method: "GET", path: S, kind: "owned" },
  { method: "PATCH", path: S, kind: "owned", body: () => ({ port: 9090 }) },
  { method: "DELETE", path: S, kind: "owned" },
  { method: "POST", path: `${S}/deploy`, kind: "owned", body: () => ({}) },
  { method: "POST", path: `${S}/restart`, kind: "owned" },
  { method: "POST", path: `${S}/domains/check`, kind: "owned" },
  { method: "POST", path: `${S}/rollback`, kind: "owned" },
  { method: "POST", path: `${S}/source/webhook-secret`, kind: "owned" },
  { method: "POST", path: `${S}/promote`, kind: "owned", body: (i) => ({ to: i.envId }) },
  { method: "GET", path: `${S}/status`, kind: "owned" },
  { method: "GET", path: `${S}/deploys`, kind: "owned" },
  { method: "GET", path: `${S}/drift`, kind: "owned" },
  { method: "GET", path: `${S}/env`, kind: "owned" },
  { method: "GET", path: `${S}/secrets`, kind: "owned" },
  { method: "PUT", path: `${S}/secrets/{key}`, kind: "owned", body: () => ({ value: "intruder" }) },
  { method: "DELETE", path: `${S}/secrets/{key}`, kind: "owned" },
  { method: "GET", path: `${S}/hook-runs`, kind: "owned" },
  { method: "GET", path: `${S}/metrics`, kind: "owned" },
  { method: "GET", path: `${S}/logs`, kind: "owned", query: () => ({ tail: "10" }) },
  { method: "GET", path: `${S}/logs/containers`, kind: "owned" },
  { method: "GET", path: `${S}/builds`, kind: "owned" },
  { method: "POST", path: `${S}/builds`, kind: "owned", body: () => ({}) },
  { method: "GET", path: `${S}/builds/{id}`, kind: "owned" },
  { method: "POST", path: `${S}/builds/{id}/cancel`, kind: "owned" },
  { method: "GET", path: "/api/v1/environments/{envId}/spec", kind: "owned" },
  {
    method: "POST",
    path: "/api/v1/environments/{envId}/apply",
    kind: "owned",
    body: () => ({ spec: { apiVersion: "levelrail.dev/v1", kind: "Environment", metadata: { project: "walk", environment: "walk" }, spec: { apps: [{ name: "intruder-spec" }] } } }),
  },
  { method: "GET", path: "/api/v1/environments/{envId}/databases", kind: "owned" },
  { method: "POST", path: "/api/v1/environments/{envId}/databases", kind: "owned", body: () => ({ name: "intruder", version: "15" }) },
  { method: "GET", path: D, kind: "owned" },
  { method: "PATCH", path: D, kind: "owned", body: () => ({ backupSchedule: null }) },
  { method: "DELETE", path: D, kind: "owned" },
  { method: "GET", path: `${D}/backups`, kind: "owned" },
  { method: "POST", path: `${D}/backups`, kind: "owned", body: (i) => ({ targetId: i.backupTargetId }) },
  { method: "GET", path: `${D}/backups/{id}`, kind: "owned" },
  { method: "POST", path: `${D}/backups/{id}/verify`, kind: "owned" },
  { method: "POST", path: `${D}/restore`, kind: "owned", body: (i) => ({ backupId: i.backupId, into: "intruder" }) },
  { method: "DELETE", path: `${D}/volumes/{volume}`, kind: "owned", body: (i) => ({ confirm: i.volume }) },
  { method: "GET", path: "/api/v1/services", kind: "input", query: (i) => ({ environmentId: i.envId }) },
  // A page starting after another organization's service: the cursor names nothing of the caller's.
  { method: "GET", path: "/api/v1/services", kind: "input", query: (i) => ({ cursor: i.serviceId, limit: "5" }) },
  { method: "POST", path: "/api/v1/services", kind: "gone" },
  ...(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).flatMap((method): ApiRoute[] => [
    { method, path: "/api/v1/services/{...rest}", kind: "gone" },
    { method, path: "/api/v1/apps/{...rest}", kind: "gone" },
  ]),
  ...(["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const).map(
    (method): ApiRoute => ({ method, path: "/api/v1/{...rest}", kind: "unrouted", ...(method === "GET" || method === "HEAD" ? {} : { body: (i: Ids) => ({ orgId: i.orgId }) }) }),
  ),
  { method: "GET", path: "/api/v1/hook-runs/{id}", kind: "owned" },
  { method: "GET", path: "/api/v1/backup-targets", kind: "own" },
  {
    method: "POST",
    path: "/api/v1/backup-targets",
    kind: "input",
    body: (i) => ({ name: "x", endpoint: "http://127.0.0.1:1", bucket: "b", region: "r", accessKey: "a", secretKey: "s", orgId: i.orgId }),
  },
  { method: "DELETE", path: "/api/v1/backup-targets/{id}", kind: "owned" },
  { method: "GET", path: "/api/v1/registry-credentials", kind: "own" },
  {
    method: "POST",
    path: "/api/v1/registry-credentials",
    kind: "input",
    body: (i) => ({ name: "x", server: "127.0.0.1:1", username: "u", password: "p", orgId: i.orgId }),
  },
  { method: "DELETE", path: "/api/v1/registry-credentials/{id}", kind: "owned" },
  { method: "GET", path: "/api/v1/storage-env-keys", kind: "own" },
  // Public: the OpenAPI document, nothing of any organization in it.
  { method: "GET", path: "/api/v1/openapi.json", kind: "own" },
  { method: "GET", path: "/api/v1/spec.schema.json", kind: "own" },
  // Public, signed by the source's secret: a source of nothing answers 404, nothing written.
  { method: "POST", path: "/api/v1/hooks/git/{sourceId}", kind: "own", body: () => ({ zen: "x" }) },
  { method: "GET", path: "/api/v1/projects/{id}/previews", kind: "owned" },
  { method: "PUT", path: "/api/v1/projects/{id}/previews", kind: "owned", body: (i) => ({ baseEnvironmentId: i.envId, domain: "preview.localhost", max: 2, ttlHours: 24 }) },
  // A preview of nothing: the project answers first (404 for a stranger's, 403 for a viewer), then the preview 404.
  { method: "POST", path: "/api/v1/projects/{id}/previews/{previewId}/approve", kind: "owned", body: () => ({ commit: "b".repeat(40) }) },
  { method: "GET", path: "/api/v1/notification-channels", kind: "own" },
  {
    method: "POST",
    path: "/api/v1/notification-channels",
    kind: "input",
    body: (i) => ({ kind: "webhook", name: "x", url: "https://hooks.example.com/x", events: ["deploy.failed"], orgId: i.orgId }),
  },
  { method: "GET", path: "/api/v1/notification-channels/{id}", kind: "owned" },
  { method: "PATCH", path: "/api/v1/notification-channels/{id}", kind: "owned", body: () => ({ name: "intruder" }) },
  { method: "DELETE", path: "/api/v1/notification-channels/{id}", kind: "owned" },
  { method: "POST", path: "/api/v1/notification-channels/{id}/test", kind: "owned" },
  { method: "GET", path: "/api/v1/notification-channels/{id}/deliveries", kind: "owned" },
  { method: "GET", path: "/api/v1/me/environment", kind: "own" },
  { method: "GET", path: "/api/v1/tokens", kind: "own" },
  { method: "DELETE", path: "/api/v1/tokens/{id}", kind: "owned" },
  { method: "PUT", path: "/api/v1/me/environment", kind: "input", body: (i) => ({ environmentId: i.envId }) },
  // A fixed `since`: its default is "30 days before now", which differs between two calls.
  { method: "GET", path: "/api/v1/metrics/deploys", kind: "input", query: (i) => ({ environmentId: i.envId, since: "2026-01-01T00:00:00Z" }) },
  // A fixed `until` for the same reason (its default is now).
  { method: "GET", path: "/api/v1/metrics/dora", kind: "input", query: (i) => ({ environmentId: i.envId, window: "7d", until: "2026-06-01T00:00:00Z" }) },
  { method: "GET", path: "/api/v1/metrics/deploys", kind: "input", query: (i) => ({ serviceId: i.serviceId, since: "2026-01-01T00:00:00Z" }) },
  { method: "GET", path: "/api/v1/metrics/dora", kind: "input", query: (i) => ({ serviceId: i.serviceId, window: "7d", until: "2026-06-01T00:00:00Z" }) },
  // The installation's nodes: no organization's own (every member reads them; an installation administrator alone changes them).
  { method: "GET", path: "/api/v1/nodes", kind: "own" },
  // Without a body: 400 before the engine is asked (on one engine a real change is a 409, which the walks' "nothing" ids could not tell apart).
  { method: "PATCH", path: "/api/v1/nodes/{id}", kind: "own" },
];

/** What a catch-all's `{...rest}` is filled with: a path under it that names the ids' resources. */
function restFor(path: string, ids: Ids): string {
  if (path === "/api/v1/services/{...rest}") return `${ids.service}/deploy`;
  if (path === "/api/v1/apps/{...rest}") return ids.app;
  return `projects/${ids.projectId}/environments/${ids.envId}/no-such-route`;
}

/** Which id fills `{id}` on a path (the folder is called `[id]` whatever it names). */
function idFor(path: string, ids: Ids): string {
  if (path.includes("/backups/{id}")) return ids.backupId;
  if (path.includes("/builds/{id}")) return ids.buildId;
  if (path.startsWith("/api/v1/orgs/")) return ids.orgId;
  if (path.startsWith("/api/v1/projects/")) return ids.projectId;
  if (path.startsWith("/api/v1/hook-runs/")) return ids.hookRunId;
  if (path.startsWith("/api/v1/backup-targets/")) return ids.backupTargetId;
  if (path.startsWith("/api/v1/registry-credentials/")) return ids.registryCredentialId;
  if (path.startsWith("/api/v1/tokens/")) return ids.tokenId;
  // A session id: the caller's own only; any other is a 404.
  if (path.startsWith("/api/v1/sessions/")) return ids.tokenId;
  if (path.startsWith("/api/v1/notification-channels/")) return ids.notificationChannelId;
  // A node is the installation's, no organization's: any id (a body-less PATCH is refused before the engine is asked).
  if (path.startsWith("/api/v1/nodes/")) return "e2enode0000000000000000000";
  throw new Error(`no id for ${path}`);
}

/** The single sign-on email domain the walk adds for an organization. */
const ssoDomainOf = (ids: Ids) => `sso-mail-${ids.orgId.slice(0, 8)}.example.com`;

/** The concrete URL of a route for one set of ids, with its query. */
export function urlOf(route: ApiRoute, ids: Ids): string {
  const path = route.path
    .replace("{...rest}", () => restFor(route.path, ids))
    .replace("{id}", () => idFor(route.path, ids))
    // A member of the organization: the organization answers first (404 for a stranger's), so any id does.
    .replace("{userId}", "someone")
    .replace("{envId}", ids.envId)
    .replace("{app}", ids.app)
    .replace("{service}", ids.service)
    .replace("{key}", ids.key)
    .replace("{db}", ids.database)
    .replace("{volume}", ids.volume)
    // Members and invitations: `me` (the caller, who is no member of another organization) and an invitation of nothing.
    .replace("{userId}", "me")
    .replace("{invitationId}", "00000000-0000-4000-8000-000000000000")
    .replace("{credId}", ids.gitCredentialId)
    .replace("{previewId}", ids.previewId ?? "00000000-0000-4000-8000-000000000000")
    // The email domain the POST above adds (the check and the removal name it).
    .replace("{domain}", ssoDomainOf(ids))
    // A git source of nothing: the webhook answers 404.
    .replace("{sourceId}", "00000000-0000-4000-8000-000000000000");
  const query = route.query ? `?${new URLSearchParams(route.query(ids)).toString()}` : "";
  return `${path}${query}`;
}

/**
 * Every method and path the web app serves under /api/v1, read from its route files
 * (`app/api/v1/**\/route.ts`); a catch-all folder (`[...rest]`, `[[...rest]]`) is `{...rest}`.
 */
export function servedRoutes(webAppDir: string): { method: string; path: string }[] {
  const root = join(webAppDir, "app", "api", "v1");
  const out: { method: string; path: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
        continue;
      }
      if (entry.name !== "route.ts") continue;
      const source = readFileSync(full, "utf8");
      const methods = new Set<string>();
      for (const m of source.matchAll(/export const \{([^}]+)\}/g)) for (const name of m[1]!.split(",")) methods.add(name.trim());
      for (const m of source.matchAll(/export (?:const|async function) (GET|POST|PUT|PATCH|DELETE|HEAD)\b/g)) methods.add(m[1]!);
      const segments = relative(root, dir)
        .split(sep)
        .filter(Boolean)
        .map((s) => s.replace(/^\[\[?\.\.\.(\w+)\]\]?$/, "{...$1}").replace(/^\[(\w+)\]$/, "{$1}"));
      for (const method of methods) out.push({ method, path: ["/api/v1", ...segments].join("/") });
    }
  };
  walk(root);
  return out;
}
