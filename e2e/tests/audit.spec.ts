// The audit log over real HTTP, generated from the route list (e2e/support/api-routes.ts, which the
// tenancy spec checks against the route files): every write route, called by an organization's own
// token, writes exactly one entry when it succeeds and none when it is refused; the same routes with
// ids of nothing (404/400) write none; the entries name the token and the caller's address, never a
// secret's value; the log pages and exports as JSON lines.
import { randomUUID } from "node:crypto";
import type { APIRequestContext } from "@playwright/test";
import { createApiToken } from "@levelrail/auth";
import { sql } from "drizzle-orm";
import { LOCAL_SEED, SEEDED_SECRET, localBody, seedResources } from "../fixtures/resources";
import { expect, test } from "../fixtures/test";
import type { Operator, Stack } from "../fixtures/stack";
import { API_ROUTES, type ApiRoute, type Ids, urlOf } from "../support/api-routes";

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/** Every write route of the API: the generated walk's list (the 410s and the catch-all write nothing by design). */
const writeRoutes = API_ROUTES.filter((r) => WRITES.has(r.method) && r.kind !== "gone" && r.kind !== "unrouted");

/**
 * The order of the walk: creates and changes first, then deletes from the most specific path to the
 * least (a secret before its service, a database's volume before the database, the project last).
 */
const ordered = [...writeRoutes].sort((a, b) => {
  const da = a.method === "DELETE" ? 1 : 0;
  const db = b.method === "DELETE" ? 1 : 0;
  if (da !== db) return da - db;
  if (da === 0) return 0;
  const depth = (r: ApiRoute) => (r.path.includes("/projects/") ? -1 : r.path.split("/").length);
  return depth(b) - depth(a);
});

/** The entries this operator made so far (every one names them: their email, or a token of theirs). */
async function entriesBy(stack: Stack, op: Operator): Promise<{ action: string; actor_type: string; source_ip: string | null; fields: string[]; text: string }[]> {
  const rows = await stack.db.execute<{ action: string; actor_type: string; source_ip: string | null; fields: string[]; text: string }>(
    sql`select action, actor_type, source_ip, fields, audit_entry::text as text from audit_entry where actor_name like ${`%${op.email}%`} order by id`,
  );
  return [...rows];
}

async function call(api: APIRequestContext, route: ApiRoute, ids: Ids) {
  const data = localBody(route, ids);
  const res = await api.fetch(urlOf(route, ids), { method: route.method, ...(data !== undefined ? { data } : {}) });
  return res.status();
}

test("Settings › Audit log shows the entries, filters them and pages", async ({ operator, bearer, signedIn: page }) => {
  // One project, then 50 more: a page's worth, so `old1` is on the second page of project.create.
  expect((await bearer.post("/api/v1/projects", { data: { name: "old1", orgId: operator.orgId } })).status()).toBe(201);
  for (let i = 0; i < 50; i++) expect((await bearer.post("/api/v1/projects", { data: { name: `ui${i}`, orgId: operator.orgId } })).status()).toBe(201);
  await page.goto("/settings");
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit log" }).click();
  await expect(page.getByRole("heading", { name: "Audit log", level: 1 })).toBeVisible();
  // The walk may have left the operator a second organization: show this one's log.
  const orgSelect = page.getByLabel("Organization");
  if (await orgSelect.count()) await orgSelect.selectOption(operator.orgId);
  const table = page.getByRole("table", { name: "Entries" });
  await expect(table.getByRole("row", { name: /project\.create.*project ui49/ })).toBeVisible();
  await page.getByLabel("Action").fill("nothing.here");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page.getByText("No entries match.")).toBeVisible();
  await page.getByLabel("Action").fill("project.create");
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(table.getByRole("row", { name: /project ui0\b/ })).toBeVisible();
  await expect(table.getByRole("row", { name: /project old1\b/ })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Export JSON lines" })).toHaveAttribute("href", `/api/v1/orgs/${operator.orgId}/audit?action=project.create&format=jsonl`);
  await expect(page.getByRole("button", { name: "Newer" })).toBeDisabled();
  await page.getByRole("button", { name: "Older" }).click();
  await expect(table.getByRole("row", { name: /project old1\b/ })).toBeVisible();
  await page.getByRole("button", { name: "Newer" }).click();
  await expect(table.getByRole("row", { name: /project ui49/ })).toBeVisible();
});

test("every write route writes exactly one entry when it succeeds and none when it is refused", async ({ stack, operator, bearer }) => {
  test.setTimeout(120_000);
  const ids = await seedResources(operator, LOCAL_SEED);
  const nothing: Ids = { ...ids, orgId: randomUUID(), projectId: randomUUID(), envId: randomUUID(), backupTargetId: randomUUID(), registryCredentialId: randomUUID(), gitCredentialId: randomUUID(), tokenId: randomUUID(), backupId: randomUUID(), buildId: randomUUID(), notificationChannelId: randomUUID(), app: "nope", service: "nope", database: "nope" };
  // Refused: ids of nothing answer 400 or 404 and write nothing.
  for (const route of writeRoutes) {
    if (route.path === "/api/v1/orgs") continue; // names nothing: it creates
    if (route.kind === "own" && !route.path.includes("{")) continue; // the caller's own (their sessions): names nothing
    const before = (await entriesBy(stack, operator)).length;
    const status = await call(bearer, route, nothing);
    const label = `${route.method} ${route.path} with ids of nothing`;
    // A node is the installation's: the organization's owner is refused before anything is looked up.
    expect(route.path.startsWith("/api/v1/nodes/") ? [403] : [400, 404], label).toContain(status);
    expect((await entriesBy(stack, operator)).length, label).toBe(before);
  }
  // Succeeding or refused by the resource's state (restart of a service never deployed: 409): one entry or none.
  const succeeded: string[] = [];
  for (const route of ordered) {
    const before = (await entriesBy(stack, operator)).length;
    const status = await call(bearer, route, ids);
    const label = `${route.method} ${route.path} → ${status}`;
    expect(status, label).toBeLessThan(500);
    const after = await entriesBy(stack, operator);
    expect(after.length - before, label).toBe(status < 300 ? 1 : 0);
    if (status < 300) {
      succeeded.push(`${route.method} ${route.path}`);
      expect(after[after.length - 1], label).toMatchObject({ actor_type: "token", source_ip: expect.any(String) });
    }
  }
  const refused = ordered.map((r) => `${r.method} ${r.path}`).filter((r) => !succeeded.includes(r));
  console.log(`audit walk: ${succeeded.length} of ${ordered.length} write routes succeeded with one entry each; refused with none: ${refused.join(", ")}`);
  // The walk proved the success branch on most routes, not only refusals.
  // (Some routes are refused by the resource's state or their placeholder ids: a rollback with no earlier
  // release, the caller's own membership, a random invitation; they write none, checked above.)
  // A node's PATCH cannot succeed here (an installation administrator's alone, and 409 on one engine); it counts as refused only.
  const canSucceed = writeRoutes.filter((r) => !r.path.startsWith("/api/v1/nodes/"));
  expect(succeeded.length, succeeded.join("\n")).toBeGreaterThanOrEqual(Math.floor(canSucceed.length * 0.7));
  const all = await entriesBy(stack, operator);
  expect(all.map((e) => e.text).join("\n")).not.toContain(SEEDED_SECRET);
  expect(all.find((e) => e.action === "secret.set")?.fields).toEqual(["API_KEY"]);
});

test("the log pages newest first and exports as JSON lines; another organization's answers 404", async ({ operator, bearer, stack, playwright }) => {
  for (const name of ["p1", "p2", "p3"]) expect((await bearer.post("/api/v1/projects", { data: { name, orgId: operator.orgId } })).status()).toBe(201);
  const first = (await (await bearer.get(`/api/v1/orgs/${operator.orgId}/audit?action=project.create&limit=2`)).json()) as { entries: { target: { name: string } }[]; nextCursor: string };
  expect(first.entries.map((e) => e.target.name)).toEqual(["p3", "p2"]);
  const second = (await (await bearer.get(`/api/v1/orgs/${operator.orgId}/audit?action=project.create&limit=2&cursor=${first.nextCursor}`)).json()) as { entries: { target: { name: string } }[] };
  expect(second.entries[0]!.target.name).toBe("p1");
  const lines = await bearer.get(`/api/v1/orgs/${operator.orgId}/audit?action=project.create`, { headers: { accept: "application/x-ndjson" } });
  expect(lines.headers()["content-type"]).toContain("application/x-ndjson");
  const parsed = (await lines.text()).trim().split("\n").map((l) => JSON.parse(l) as { action: string });
  expect(parsed.length).toBeGreaterThanOrEqual(3);
  expect(parsed.every((e) => e.action === "project.create")).toBe(true);
  const { seedOperator, removeOperator } = await import("../fixtures/stack");
  const other = await seedOperator(stack, "audit-b");
  const b = await playwright.request.newContext({ baseURL: stack.env.baseURL, extraHTTPHeaders: { authorization: `Bearer ${await createApiToken(stack.db, other.email, "b")}` } });
  try {
    expect((await b.get(`/api/v1/orgs/${operator.orgId}/audit`)).status()).toBe(404);
  } finally {
    await b.dispose();
    await removeOperator(stack, other);
  }
});
