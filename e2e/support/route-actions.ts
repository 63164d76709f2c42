// The action of the permission table (packages/services/src/org/permissions.ts) each API route
// performs, keyed `METHOD path` like e2e/support/api-routes.ts. The roles spec walks every route with
// every role and compares the answer with the table; a route without an entry here fails it.
import type { Action } from "@levelrail/services/org/permissions";

/**
 * `own`: the caller's own things (their organizations, tokens, preference, sessions), no role needed.
 * `none`: a catch-all that serves nothing. `elsewhere`: membership, whose verbs check the caller's
 * role in the same transaction as the change (members' own guard, `member-guard.ts`, `requireManager`
 * asks the table's `member.manage`), walked by members.spec.ts (a walk here would make the viewer
 * leave: `DELETE …/members/me`); and the owner's actions on one member's sign-in (`orgSecurity.manage`,
 * walked by two-factor.spec.ts: the walk's `{userId}` names no member, so the allowed call is a 404)
 * and the sign-in security settings' read (every member reads the policy).
 */
export type RouteAction = Action | "own" | "none" | "elsewhere";

const S = "/api/v1/environments/{envId}/services/{service}";
const D = "/api/v1/environments/{envId}/databases/{db}";

export const ROUTE_ACTIONS: Record<string, RouteAction> = {
  "GET /api/v1/orgs": "own",
  "POST /api/v1/orgs": "own",
  "GET /api/v1/orgs/{id}/env": "orgEnv.read",
  "PUT /api/v1/orgs/{id}/env": "orgEnv.write",
  "GET /api/v1/orgs/{id}/quotas": "quota.read",
  "GET /api/v1/orgs/{id}/members": "member.read",
  "GET /api/v1/orgs/{id}/audit": "audit.read",
  "PATCH /api/v1/orgs/{id}/members/{userId}": "elsewhere",
  "DELETE /api/v1/orgs/{id}/members/{userId}": "elsewhere",
  "GET /api/v1/orgs/{id}/invitations": "elsewhere",
  "POST /api/v1/orgs/{id}/invitations": "elsewhere",
  "DELETE /api/v1/orgs/{id}/invitations/{invitationId}": "elsewhere",
  "POST /api/v1/invitations/accept": "own",
  "GET /api/v1/orgs/{id}/security": "elsewhere",
  "PUT /api/v1/orgs/{id}/security": "orgSecurity.manage",
  "DELETE /api/v1/orgs/{id}/members/{userId}/two-factor": "elsewhere",
  "DELETE /api/v1/orgs/{id}/members/{userId}/sessions": "elsewhere",
  "GET /api/v1/account": "own",
  "GET /api/v1/sessions": "own",
  "DELETE /api/v1/sessions": "own",
  "DELETE /api/v1/sessions/{id}": "own",
  "GET /api/v1/projects": "own",
  "POST /api/v1/projects": "project.create",
  "GET /api/v1/projects/{id}": "project.read",
  "DELETE /api/v1/projects/{id}": "project.delete",
  "GET /api/v1/projects/{id}/env": "projectEnv.read",
  "PUT /api/v1/projects/{id}/env": "projectEnv.write",
  "GET /api/v1/projects/{id}/environments": "environment.read",
  "POST /api/v1/projects/{id}/environments": "environment.create",
  "GET /api/v1/environments/{envId}": "environment.read",
  "DELETE /api/v1/environments/{envId}": "environment.delete",
  "GET /api/v1/environments/{envId}/env": "environmentEnv.read",
  "PUT /api/v1/environments/{envId}/env": "environmentEnv.write",
  "GET /api/v1/environments/{envId}/apps": "app.read",
  "POST /api/v1/environments/{envId}/apps": "app.write",
  "GET /api/v1/environments/{envId}/apps/{app}": "app.read",
  "DELETE /api/v1/environments/{envId}/apps/{app}": "app.write",
  "GET /api/v1/environments/{envId}/apps/{app}/hook-runs": "log.read",
  "GET /api/v1/environments/{envId}/services": "service.read",
  "POST /api/v1/environments/{envId}/services": "service.write",
  [`GET ${S}`]: "service.read",
  [`PATCH ${S}`]: "service.write",
  [`DELETE ${S}`]: "service.write",
  [`POST ${S}/deploy`]: "service.deploy",
  [`POST ${S}/restart`]: "service.deploy",
  [`POST ${S}/rollback`]: "service.deploy",
  [`POST ${S}/promote`]: "service.deploy",
  [`GET ${S}/status`]: "service.read",
  [`GET ${S}/deploys`]: "service.read",
  [`GET ${S}/drift`]: "service.read",
  [`GET ${S}/env`]: "service.read",
  [`GET ${S}/secrets`]: "secret.read",
  [`PUT ${S}/secrets/{key}`]: "secret.write",
  [`DELETE ${S}/secrets/{key}`]: "secret.write",
  [`GET ${S}/hook-runs`]: "log.read",
  [`GET ${S}/metrics`]: "metrics.read",
  [`POST ${S}/domains/check`]: "service.write",
  [`GET ${S}/logs`]: "log.read",
  [`GET ${S}/logs/containers`]: "log.read",
  "GET /api/v1/environments/{envId}/spec": "spec.read",
  "POST /api/v1/environments/{envId}/apply": "spec.apply",
  "GET /api/v1/environments/{envId}/databases": "database.read",
  "POST /api/v1/environments/{envId}/databases": "database.write",
  [`GET ${D}`]: "database.read",
  [`PATCH ${D}`]: "database.write",
  [`DELETE ${D}`]: "database.write",
  [`GET ${D}/backups`]: "backup.read",
  [`POST ${D}/backups`]: "backup.write",
  [`GET ${D}/backups/{id}`]: "backup.read",
  [`POST ${D}/backups/{id}/verify`]: "backup.write",
  [`POST ${D}/restore`]: "database.restore",
  [`DELETE ${D}/volumes/{volume}`]: "database.write",
  "GET /api/v1/services": "service.read",
  "POST /api/v1/services": "none",
  "GET /api/v1/hook-runs/{id}": "log.read",
  "GET /api/v1/backup-targets": "backupTarget.read",
  "POST /api/v1/backup-targets": "backupTarget.write",
  "DELETE /api/v1/backup-targets/{id}": "backupTarget.write",
  "GET /api/v1/registry-credentials": "registryCredential.read",
  "POST /api/v1/registry-credentials": "registryCredential.write",
  "DELETE /api/v1/registry-credentials/{id}": "registryCredential.write",
  "GET /api/v1/storage-env-keys": "own",
  "GET /api/v1/openapi.json": "own",
  "GET /api/v1/spec.schema.json": "own",
  "GET /api/v1/notification-channels": "notificationChannel.read",
  "POST /api/v1/notification-channels": "notificationChannel.write",
  "GET /api/v1/notification-channels/{id}": "notificationChannel.read",
  "PATCH /api/v1/notification-channels/{id}": "notificationChannel.write",
  "DELETE /api/v1/notification-channels/{id}": "notificationChannel.write",
  "POST /api/v1/notification-channels/{id}/test": "notificationChannel.write",
  "GET /api/v1/notification-channels/{id}/deliveries": "notificationChannel.read",
  "GET /api/v1/me/environment": "own",
  "PUT /api/v1/me/environment": "environment.read",
  "GET /api/v1/tokens": "own",
  "DELETE /api/v1/tokens/{id}": "own",
  "GET /api/v1/metrics/deploys": "metrics.read",
  "GET /api/v1/metrics/dora": "metrics.read",
  ...Object.fromEntries(
    (["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const).flatMap((m) => [
      [`${m} /api/v1/{...rest}`, "none"],
      [`${m} /api/v1/services/{...rest}`, "none"],
      [`${m} /api/v1/apps/{...rest}`, "none"],
    ]),
  ),
};

/** The action of `METHOD path`, or undefined when the route has no entry. */
export const actionOf = (method: string, path: string): RouteAction | undefined => ROUTE_ACTIONS[`${method} ${path}`];
