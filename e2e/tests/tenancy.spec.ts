// Walls between organizations over real HTTP: every API route, called by one organization with
// another's ids and names (in the path, the query or the body), answers exactly what it answers for
// ids that name nothing (docs/api.md#errors), and writes nothing; the catch-all routes and the caller's
// own routes included.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { APIRequestContext } from "@playwright/test";
import { createApiToken } from "@levelrail/auth";
import { createApp } from "@levelrail/services/app/app";
import { createDatabase } from "@levelrail/services/database/write";
import { createService } from "@levelrail/services/service/write";
import { POSTGRES_TEST_IMAGE } from "@levelrail/testkit/postgres-image";
import { expect, test } from "../fixtures/test";
import { type Operator, removeOperator, seedOperator } from "../fixtures/stack";
import { API_ROUTES, type ApiRoute, type Ids, servedRoutes, urlOf } from "../support/api-routes";
import { seedResources } from "../fixtures/resources";
import { BODY_ID_CASES, coveredIdFields, idFieldsInSchemas } from "../support/body-ids";
import { repoRoot } from "../support/env";
import { tenancyState } from "../support/tenancy-state";

/** A's resources, seeded once per file (the operator fixture is one per file). */
let seeded: Promise<Ids> | null = null;
const seedOnce = (op: Operator) => (seeded ??= seedResources(op));

/** B's own resources for the body walk: the same app and service names as A's, a database of its own. */
async function seedOwn(op: Operator): Promise<Ids> {
  const ctx = op.ctx;
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  const web = await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: "nginx:1", port: 8080 } });
  await createDatabase({ ctx, envId: ctx.envId, input: { name: "b-db", version: "15", image: POSTGRES_TEST_IMAGE } });
  const unused = randomUUID();
  return {
    orgId: op.orgId,
    projectId: op.projectId,
    envId: op.environmentId,
    app: "shop",
    service: "web",
    key: "K",
    database: "b-db",
    volume: "v",
    serviceId: web.id,
    ...{ hookRunId: unused, backupTargetId: unused, registryCredentialId: unused, gitCredentialId: unused, tokenId: unused, backupId: unused, buildId: unused, notificationChannelId: unused },
  };
}

const randomIds = (like: Ids): Ids => ({
  ...like,
  orgId: randomUUID(),
  projectId: randomUUID(),
  envId: randomUUID(),
  hookRunId: randomUUID(),
  backupTargetId: randomUUID(),
  registryCredentialId: randomUUID(),
  gitCredentialId: randomUUID(),
  tokenId: randomUUID(),
  backupId: randomUUID(),
  buildId: randomUUID(),
  notificationChannelId: randomUUID(),
  serviceId: randomUUID(),
});

/** The text with every id of `ids` replaced by its name: a 404 that echoes the path it was asked compares alike. */
function withoutIds(body: unknown, ids: Ids): string {
  let text = JSON.stringify(body);
  for (const [k, v] of Object.entries(ids)) if (v.length >= 8) text = text.split(v).join(`<${k}>`);
  return text;
}

async function call(api: APIRequestContext, route: ApiRoute, ids: Ids, body?: unknown) {
  const data = body ?? route.body?.(ids);
  const res = await api.fetch(urlOf(route, ids), { method: route.method, ...(data !== undefined ? { data } : {}) });
  const text = await res.text();
  return { status: res.status(), body: text ? (JSON.parse(text) as unknown) : null };
}

async function bearerFor(playwright: { request: { newContext(o: object): Promise<APIRequestContext> } }, baseURL: string, token: string) {
  return playwright.request.newContext({ baseURL, extraHTTPHeaders: { authorization: `Bearer ${token}` } });
}

test("every route of the API has its case in the one list, and every listed route is served", () => {
  const listed = new Set(API_ROUTES.map((r) => `${r.method} ${r.path}`));
  const served = servedRoutes(join(repoRoot, "apps", "web")).map((r) => `${r.method} ${r.path}`);
  expect(served.filter((r) => !listed.has(r)), "routes without a case in e2e/support/api-routes.ts").toEqual([]);
  expect([...listed].filter((r) => !served.includes(r)), "listed routes the web app does not serve").toEqual([]);
});

test("another organization's resources answer exactly like ones that do not exist, on every route; nothing of theirs changes", async ({
  stack,
  operator,
  bearer,
  playwright,
}) => {
  test.setTimeout(120_000);
  const a = await seedOnce(operator);
  const other = await seedOperator(stack, "tenancy-b");
  const b = await bearerFor(playwright, stack.env.baseURL, await createApiToken(stack.db, other.email, "tenancy"));
  try {
    // The ids are real: A itself reads every resource a GET route names.
    for (const route of API_ROUTES.filter((r) => r.kind === "owned" && r.method === "GET")) {
      const own = await call(bearer, route, a);
      expect(own.status, `${route.method} ${route.path} as the owner`).toBe(200);
    }
    const nothing = randomIds(a);
    for (const route of API_ROUTES.filter((r) => r.kind === "owned" || r.kind === "input")) {
      const label = `${route.method} ${route.path}`;
      const theirs = await call(b, route, a);
      const none = await call(b, route, nothing);
      expect(theirs, `${label}: another organization's resource must look like none`).toEqual(none);
      if (route.kind === "owned") expect(theirs.status, label).toBe(404);
      expect(JSON.stringify(theirs.body), `${label} leaks nothing of A`).not.toContain("a-secret-of-a");
    }
    for (const route of API_ROUTES.filter((r) => r.kind === "gone")) {
      const res = await call(b, route, a);
      expect(res.status, `${route.method} ${route.path}`).toBe(410);
      expect(JSON.stringify(res.body)).toContain("/api/v1/environments/");
    }
    // The catch-all: a path no route serves is a 404 whatever ids it holds, and names nothing of A.
    for (const route of API_ROUTES.filter((r) => r.kind === "unrouted")) {
      const label = `${route.method} ${urlOf(route, a)}`;
      const theirs = await call(b, route, a);
      const none = await call(b, route, nothing);
      expect(theirs.status, label).toBe(404);
      expect(withoutIds(theirs.body, a), label).toEqual(withoutIds(none.body, nothing));
    }
    // Nothing of A changed: the service keeps its port and secret, the environment and project stand.
    const service = await bearer.get(`/api/v1/environments/${a.envId}/services/web`);
    expect(service.status()).toBe(200);
    expect((await service.json()) as { port: number }).toMatchObject({ port: 8080 });
    expect(await (await bearer.get(`/api/v1/environments/${a.envId}/services/web/secrets`)).json()).toEqual([
      { key: "API_KEY", updatedAt: expect.any(String) },
    ]);
    expect((await bearer.get(`/api/v1/projects/${a.projectId}`)).status()).toBe(200);
    const db = await bearer.get(`/api/v1/environments/${a.envId}/databases/${a.database}`);
    expect(db.status()).toBe(200);
    expect((await db.json()) as { previousVolumes: { name: string; removing: boolean }[] }).toMatchObject({ previousVolumes: [{ name: a.volume, removing: false }] });
    expect(await (await bearer.get(`/api/v1/orgs/${a.orgId}/env`)).json()).toEqual({ vars: {} });
    expect((await (await bearer.get("/api/v1/tokens")).json()) as { id: string }[]).toContainEqual(expect.objectContaining({ id: a.tokenId }));
  } finally {
    await b.dispose();
    await removeOperator(stack, other);
  }
});

test("every id-bearing field of an input schema has a case in the body walk", () => {
  const probe = randomIds({ orgId: "", projectId: "", envId: "", app: "shop", service: "web", key: "K", hookRunId: "", backupTargetId: "", registryCredentialId: "", gitCredentialId: "", tokenId: "", database: "db", backupId: "", buildId: "", volume: "v", notificationChannelId: "", serviceId: "" });
  const covered = coveredIdFields(probe);
  const missing = [...idFieldsInSchemas(repoRoot)].filter((f) => !covered.has(f)).sort();
  expect(missing, "id-bearing input fields without a case in e2e/support/body-ids.ts").toEqual([]);
});

test("another organization's ids inside a body, on the caller's own resources, answer like ids of nothing and write nothing; own routes show nothing of it", async ({
  stack,
  operator,
  bearer,
  playwright,
}) => {
  test.setTimeout(120_000);
  const a = await seedOnce(operator);
  const other = await seedOperator(stack, "tenancy-body");
  const b = await bearerFor(playwright, stack.env.baseURL, await createApiToken(stack.db, other.email, "tenancy"));
  try {
    const mine = await seedOwn(other);
    const users = [operator.ctx.actor.userId, other.ctx.actor.userId];
    const before = await tenancyState(stack.db, [a.orgId, mine.orgId], users);
    const nothing = randomIds(a);
    for (const c of BODY_ID_CASES) {
      const route: ApiRoute = { method: c.method, path: c.path, kind: "own" };
      const label = `${c.method} ${c.path} with another organization's ${c.field}`;
      const theirs = await call(b, route, mine, c.body(a));
      const none = await call(b, route, mine, c.body(nothing));
      expect(theirs, `${label} must look like an id of nothing`).toEqual(none);
      expect([400, 404], `${label}: ${JSON.stringify(theirs.body)}`).toContain(theirs.status);
      expect(JSON.stringify(theirs.body), `${label} leaks nothing of A`).not.toContain("a-secret-of-a");
    }
    // The caller's own routes (lists, preferences), plain and with A's ids in the query: nothing of A.
    const secrets = [a.orgId, a.projectId, a.envId, a.serviceId, a.backupTargetId, a.registryCredentialId, a.gitCredentialId, a.notificationChannelId, a.tokenId, a.hookRunId, a.backupId, a.buildId, "a-secret-of-a", operator.email];
    for (const route of API_ROUTES.filter((r) => r.kind === "own")) {
      for (const query of [{}, { orgId: a.orgId, environmentId: a.envId, projectId: a.projectId }] as Record<string, string>[]) {
        const url = `${urlOf(route, mine)}${Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : ""}`;
        const res = await b.fetch(url, { method: route.method });
        const text = await res.text();
        expect(res.status(), `${route.method} ${url}`).toBeLessThan(500);
        for (const s of secrets) expect(text, `${route.method} ${url} shows another organization's ${s === operator.email ? "operator" : "id"}`).not.toContain(s);
      }
    }
    // Nothing was written, in either organization.
    expect(await tenancyState(stack.db, [a.orgId, mine.orgId], users)).toEqual(before);
    expect((await bearer.get(`/api/v1/environments/${a.envId}/services/web`)).status()).toBe(200);
  } finally {
    await b.dispose();
    await removeOperator(stack, other);
  }
});
