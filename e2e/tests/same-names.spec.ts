// A name is not an identity: the same app and service names in production and staging. Every page
// and figure that lists services shows each once, in its own environment, with its own counts;
// nothing groups or counts them by name.
import type { Page } from "@playwright/test";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { createEnvironment } from "@levelrail/services/project/environment";
import { getStatus } from "@levelrail/services/service/view";
import { waitFor } from "@levelrail/testkit/wait";
import { DEPLOY_TIMEOUT, seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

/** The rows of a table (its header row left out) that name `text`. */
const rowsNaming = (page: Page, table: string, text: string) =>
  page.getByRole("table", { name: table, exact: true }).getByRole("row").filter({ hasText: text });

test("the same service name in two environments: each page and figure lists and counts each service once", async ({ signedIn: page, operator, images }) => {
  void images;
  test.setTimeout(240_000);
  // web in production, deployed once; staging cloned from it and deployed once too.
  const seeded = await seedService(operator, { prefix: "twin", deployed: true });
  const { app, name } = seeded;
  const staging = await createEnvironment({ ctx: operator.ctx, projectId: operator.projectId, input: { name: "staging", from: operator.environmentId }, deploy: true });
  await waitFor(`${name} in staging to run`, async () => (await getStatus({ ctx: operator.ctx, envId: staging.id, name })).phase === "running" || undefined, {
    timeoutMs: DEPLOY_TIMEOUT,
    intervalMs: 250,
  });
  const project = (await listProjects({ ctx: operator.ctx })).find((p) => p.id === operator.projectId)!.name;
  expect((await listEnvironments({ ctx: operator.ctx, projectId: operator.projectId })).map((e) => e.name).sort()).toEqual(["production", "staging"]);

  // The dashboard (production, the current environment): the service once, with production's status.
  await page.goto("/");
  const card = page.getByRole("region", { name: app });
  await expect(card.getByRole("row")).toHaveCount(2);
  await expect(card.getByRole("row", { name: new RegExp(`^${name}\\b`) })).toContainText("running");
  // Its filter finds it once too.
  const filter = page.getByLabel("Filter by name");
  await hydrated(filter);
  await filter.fill(name);
  await expect(page.getByRole("link", { name, exact: true })).toHaveCount(1);

  // Each environment's page and its app's page: once.
  for (const envId of [operator.environmentId, staging.id]) {
    await page.goto(`/environments/${envId}`);
    await expect(page.getByRole("region", { name: app }).getByRole("link", { name, exact: true })).toHaveCount(1);
    await page.goto(`/environments/${envId}/apps/${app}`);
    await expect(page.getByRole("link", { name, exact: true })).toHaveCount(1);
    // The service's own page: its one release, not the other environment's.
    await page.goto(`/environments/${envId}/services/${name}`);
    await expect(page.getByRole("table", { name: "Recent releases" }).getByRole("row")).toHaveCount(2);
  }

  // The Deploys page: two rows, one deploy each, and two for the fleet.
  await page.goto("/deploys");
  await expect(page.getByRole("region", { name: "Deploys per day: Whole fleet" })).toContainText("2 deployed, 0 failed");
  const byService = rowsNaming(page, "By service", name);
  await expect(byService).toHaveCount(2);
  for (const environment of ["production", "staging"]) {
    const row = byService.filter({ hasText: `in ${environment}` });
    await expect(row).toHaveCount(1);
    await expect(row.getByRole("cell").nth(2)).toHaveText("1");
  }
  // DORA: one row per service, one change each; one row per environment.
  const dora = rowsNaming(page, "DORA by service", name);
  await expect(dora).toHaveCount(2);
  await expect(page.getByRole("table", { name: "DORA by environment" }).getByRole("row")).toHaveCount(3);
  await expect(page.getByRole("region", { name: "DORA figures: whole fleet" }).getByTestId("dora-frequency")).toContainText("2 changes went live");
  // The service picker offers each (by its environment; its list loads when it is reached for) and
  // counts only the one chosen.
  const picker = page.getByLabel("Service", { exact: true });
  await hydrated(picker);
  await picker.focus();
  await expect(picker.getByRole("option", { name: new RegExp(`^${name} `) })).toHaveCount(2);
  await picker.selectOption({ label: `${name} (${project} / staging)` });
  const chosen = page.getByRole("region", { name: `Deploys per day: ${name} (${project} / staging)` });
  await expect(chosen).toContainText("1 deployed, 0 failed");
});

test("unknown API paths answer the JSON not_found error; unknown pages the panel's own 404 with its header and a way back; /metrics moved to /deploys", async ({
  signedIn: page,
  bearer,
  request,
}) => {
  for (const [method, path] of [
    ["GET", "/api/v1/nothing-here"],
    ["POST", "/api/v1/environments/00000000-0000-4000-8000-000000000000/no-such-thing"],
    ["DELETE", "/api/v1/orgs/x/y/z"],
  ] as const) {
    for (const client of [bearer, request]) {
      const res = await client.fetch(path, { method });
      expect(res.status(), `${method} ${path}`).toBe(404);
      expect(res.headers()["content-type"]).toContain("application/json");
      expect(await res.json()).toEqual({ error: { code: "not_found", message: expect.stringContaining(path) } });
    }
  }

  await page.goto("/no-such-page");
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Deploys" })).toBeVisible();
  await page.getByRole("link", { name: "Back to the dashboard" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();

  // A page whose resource does not exist: the same page inside the panel.
  await page.goto("/environments/00000000-0000-4000-8000-000000000000");
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("banner").getByRole("link", { name: "Levelrail" })).toBeVisible();

  await page.goto("/metrics");
  await expect(page).toHaveURL(/\/deploys$/);
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Deploys" }).click();
  await expect(page).toHaveURL(/\/deploys$/);
  await expect(page.getByRole("heading", { level: 1, name: "Deploys" })).toBeVisible();
});
