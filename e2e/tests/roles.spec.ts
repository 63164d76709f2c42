// Roles over real HTTP (issue 23, item 2): every API route, read from the route files, called by a
// member of each role, answers what the permission table (packages/services/src/org/permissions.ts)
// says: a 403 naming the role that would do, with nothing written, for a role too weak; the route's
// own answer otherwise. A member whose role holds on another project gets the 404 of something that
// does not exist; a read-only token acts as a viewer and changes nothing, not even the caller's own
// things. The installation's nodes are read by every member and changed by an installation
// administrator only: no organization role, however high.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { eq, inArray } from "drizzle-orm";
import { createApiToken, createOperator } from "@levelrail/auth";
import { user } from "@levelrail/db/schema/auth";
import { membership } from "@levelrail/db/schema/orgs";
import { type Role, ROLES } from "@levelrail/spec/roles";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { allows as allowsRole, isInstallationAction, requiredRole } from "@levelrail/services/org/permissions";
import { createApp } from "@levelrail/services/app/app";
import { createProject } from "@levelrail/services/project/create";
import { createService } from "@levelrail/services/service/write";
import { seedMember } from "@levelrail/testkit/seed";
import { LOCAL_SEED, LOOPBACK_IMAGE, localBody, seedResources } from "../fixtures/resources";
import { expect, test } from "../fixtures/test";
import { signInThroughApi } from "../fixtures/ui";
import { API_ROUTES, type ApiRoute, type Ids, servedRoutes, urlOf } from "../support/api-routes";
import { repoRoot } from "../support/env";
import { actionOf } from "../support/route-actions";
import { tenancyState } from "../support/tenancy-state";

async function call(api: APIRequestContext, route: ApiRoute, ids: Ids) {
  const data = localBody(route, ids);
  const res = await api.fetch(urlOf(route, ids), { method: route.method, ...(data !== undefined ? { data } : {}) });
  const text = await res.text();
  return { status: res.status(), body: text ? (JSON.parse(text) as unknown) : null };
}

const randomIds = (like: Ids): Ids => ({
  ...like,
  ...Object.fromEntries(["orgId", "projectId", "envId", "hookRunId", "backupTargetId", "registryCredentialId", "gitCredentialId", "tokenId", "backupId", "buildId", "notificationChannelId", "serviceId"].map((k) => [k, randomUUID()])),
});

/** No organization role does an installation's action (a node change): an installation administrator only. */
const allows = (role: Role, action: string) => !isInstallationAction(action) && allowsRole(role, action);
/** The 403 a role too weak for `action` gets. */
const refusalOf = (action: string) => (isInstallationAction(action) ? "needs an installation administrator" : `needs the ${requiredRole(action)} role`);

/**
 * The routes that act through the permission table, each with its action: an organization's
 * resources, and the installation's nodes (they name no organization, but their actions are checked
 * like any other; marking them `own` once hid that any organization's admin could change them).
 */
const walked = API_ROUTES.filter((r) => r.kind === "owned" || r.kind === "input" || (r.kind === "own" && !["own", "none", "elsewhere"].includes(actionOf(r.method, r.path) ?? "own")))
  .map((route) => ({ route, action: actionOf(route.method, route.path) }))
  .filter((w) => w.action !== "elsewhere");
/** The caller's own things (sessions, organizations, tokens, invitations, preference): no role, but a read-only token changes none of them. */
const ownChanges = API_ROUTES.filter((r) => r.method !== "GET" && actionOf(r.method, r.path) === "own" && !r.path.startsWith("/api/v1/hooks/"));

/** Deletes last, the things others live in last of all, so every other allowed call still finds its target. */
const DELETE_ORDER = ["/secrets/", "/volumes/", "/backup-targets/", "/registry-credentials/", "/git-credentials/", "/notification-channels/", "/tokens/", "/databases/", "/services/", "/apps/", "/environments/", "/projects/"];
const deleteRank = (r: ApiRoute) => (r.method === "DELETE" ? 1 + DELETE_ORDER.findIndex((p) => r.path.includes(p)) : 0);

test("every route has its action in the one map, and every action there is in the permission table", () => {
  const served = servedRoutes(join(repoRoot, "apps", "web"));
  expect(served.filter((r) => actionOf(r.method, r.path) === undefined).map((r) => `${r.method} ${r.path}`), "routes without an action in e2e/support/route-actions.ts").toEqual([]);
  for (const { route, action } of walked) {
    if (action !== "own" && action !== "none" && action !== "elsewhere") expect(requiredRole(action!) !== null || isInstallationAction(action!), `${route.method} ${route.path}`).toBe(true);
  }
});

test("the UI disables what a viewer may not do and says which role would", async ({ stack, operator, page }) => {
  await createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: "ui" } });
  await createService({ ctx: operator.ctx, envId: operator.environmentId, input: { name: "front", app: "ui", image: LOOPBACK_IMAGE, port: 8080 } });
  const password = `pw-${randomUUID()}`;
  const viewer = await createOperator(stack.auth, `e2e-ui-viewer-${randomUUID().slice(0, 8)}@e2e.levelrail.test`, password);
  await stack.db.insert(membership).values({ orgId: operator.orgId, userId: viewer.id, role: "viewer" });
  try {
    await signInThroughApi(page, stack, { email: viewer.email, password });
    await page.goto(`/environments/${operator.environmentId}/services/front`);
    await expect(page.getByRole("heading", { name: "front", level: 1 })).toBeVisible();
    for (const name of ["Deploy", "Restart", "Rollback"]) await expect(page.getByRole("button", { name, exact: true })).toBeDisabled();
    await expect(page.getByText("Your role cannot do this here: needs the developer role").first()).toBeVisible();
    await page.goto(`/environments/${operator.environmentId}`);
    await expect(page.getByRole("button", { name: "Delete environment" })).toBeDisabled();
    await expect(page.getByText("needs the admin role").first()).toBeVisible();
  } finally {
    await stack.db.delete(user).where(eq(user.id, viewer.id));
  }
});

test("every route with every role answers as the permission table says; a refused request writes nothing", async ({ stack, operator, bearer, playwright }) => {
  test.setTimeout(300_000);
  const ids = await seedResources(operator, LOCAL_SEED);
  const org = { orgId: operator.orgId, kit: stack.kit };
  const members = {
    viewer: await seedMember(stack.db, org, "e2e-viewer", "viewer"),
    developer: await seedMember(stack.db, org, "e2e-developer", "developer"),
    admin: await seedMember(stack.db, org, "e2e-admin", "admin"),
  };
  const elsewhere = await createProject({ ctx: operator.ctx, input: { name: "contracted", orgId: operator.orgId } });
  const contractor = await seedMember(stack.db, org, "e2e-contractor", "developer", elsewhere.id);
  const client = async (email: string, readOnly = false) =>
    playwright.request.newContext({ baseURL: stack.env.baseURL, extraHTTPHeaders: { authorization: `Bearer ${await createApiToken(stack.db, email, "roles", undefined, readOnly)}` } });
  const clients: Record<Role, APIRequestContext> = {
    viewer: await client(members.viewer.email),
    developer: await client(members.developer.email),
    admin: await client(members.admin.email),
    owner: bearer,
  };
  const readOnlyAdmin = await client(members.admin.email, true);
  // An installation administrator (levelrail admin grant): a viewer of the organization, so only that makes it one.
  const installer = await seedMember(stack.db, org, "e2e-installer", "viewer");
  await stack.db.insert(installationAdmin).values({ userId: installer.userId });
  const installerClient = await client(installer.email);
  const outside = await client(contractor.email);
  const users = [operator.ctx.actor.userId, ...Object.values(members).map((m) => m.userId), contractor.userId, installer.userId];
  try {
    // 1. Refused: each role too weak for a route gets a 403 naming the role that would do; nothing is written.
    const before = await tenancyState(stack.db, [operator.orgId], users);
    for (const role of ROLES) {
      for (const { route, action } of walked) {
        if (action === "own" || action === "none" || action === undefined || allows(role, action)) continue;
        const res = await call(clients[role], route, ids);
        const label = `${route.method} ${route.path} as ${role}`;
        expect(res.status, `${label}: ${JSON.stringify(res.body)}`).toBe(403);
        expect(JSON.stringify(res.body), label).toContain(refusalOf(action));
      }
    }
    // A read-only token of an admin is a viewer: refused every change.
    for (const { route } of walked.filter((w) => w.action !== undefined && w.action !== "own" && w.action !== "none" && !allows("viewer", w.action))) {
      const res = await call(readOnlyAdmin, route, ids);
      expect(res.status, `${route.method} ${route.path} with a read-only token`).toBe(403);
    }
    // Nor any change of the caller's own things (ending sessions, leaving, accepting, revoking, creating an organization).
    for (const route of ownChanges) {
      const res = await call(readOnlyAdmin, route, ids);
      expect(res.status, `${route.method} ${route.path} with a read-only token: ${JSON.stringify(res.body)}`).toBe(403);
      expect(JSON.stringify(res.body)).toContain("a read-only API token changes nothing");
    }
    // 2. A role on another project: every resource here answers like one that does not exist.
    const nothing = randomIds(ids);
    for (const { route, action } of walked) {
      if (action === "own" || action === "none") continue;
      const label = `${route.method} ${route.path} as a member of another project`;
      const theirs = await call(outside, route, ids);
      expect(theirs, label).toEqual(await call(outside, route, nothing));
      if (route.kind === "owned") expect(theirs.status, label).toBe(404);
    }
    expect(await tenancyState(stack.db, [operator.orgId], users), "a refused request wrote something").toEqual(before);
    // 3. Allowed reads answer 200 for every role the table allows.
    for (const role of ROLES) {
      for (const { route, action } of walked.filter((w) => w.route.method === "GET")) {
        if (action === undefined || action === "none" || (action !== "own" && !allows(role, action))) continue;
        const res = await call(clients[role], route, ids);
        expect(res.status, `${route.method} ${route.path} as ${role}: ${JSON.stringify(res.body)}`).toBe(200);
      }
    }
    // 4. Allowed changes: the weakest role the table allows gets the route's own answer (never 403, never
    //    404: the target exists); deletes last, so each change still finds what it names.
    const changes = walked.filter((w) => w.route.method !== "GET" && w.action !== undefined && w.action !== "own" && w.action !== "none");
    for (const { route, action } of changes.sort((a, b) => deleteRank(a.route) - deleteRank(b.route))) {
      const role = isInstallationAction(action!) ? "an installation administrator" : ROLES.find((r) => allows(r, action!))!;
      const res = await call(role === "an installation administrator" ? installerClient : clients[role], route, ids);
      expect([403, 404], `${route.method} ${route.path} as ${role}: ${JSON.stringify(res.body)}`).not.toContain(res.status);
      expect(res.status, `${route.method} ${route.path} as ${role}`).toBeLessThan(500);
    }
  } finally {
    for (const c of [clients.viewer, clients.developer, clients.admin, readOnlyAdmin, outside, installerClient]) await c.dispose();
    await stack.db.delete(user).where(inArray(user.id, users.slice(1)));
  }
});

test("a removed member's token answers 401 at its next request", async ({ stack, operator, playwright }) => {
  const gone = await seedMember(stack.db, { orgId: operator.orgId, kit: stack.kit }, "e2e-leaver", "admin");
  const api = await playwright.request.newContext({ baseURL: stack.env.baseURL, extraHTTPHeaders: { authorization: `Bearer ${await createApiToken(stack.db, gone.email, "ci")}` } });
  try {
    expect((await api.get("/api/v1/projects")).status()).toBe(200);
    // Removed from the organization: the user and the token row stay, the membership goes.
    await stack.db.delete(membership).where(eq(membership.userId, gone.userId));
    expect((await api.get("/api/v1/projects")).status()).toBe(401);
  } finally {
    await api.dispose();
    await stack.db.delete(user).where(eq(user.id, gone.userId));
  }
});
