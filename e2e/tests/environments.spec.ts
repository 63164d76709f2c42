import { randomUUID } from "node:crypto";
import type { Page } from "@playwright/test";
import { createApp, listApps } from "@levelrail/services/app/app";
import { getCurrentEnvironment } from "@levelrail/services/operator/preference";
import { createEnvironment } from "@levelrail/services/project/environment";
import { createProject } from "@levelrail/services/project/create";
import { listEnvironments, listProjects } from "@levelrail/services/project/list";
import { getService } from "@levelrail/services/service/view";
import { serviceFilter } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { DEPLOY_TIMEOUT, seedService } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, servicePage } from "../fixtures/ui";

/** The header's project and environment selectors. */
const switcher = (page: Page) => {
  const group = page.getByRole("banner").getByRole("group", { name: "Project and environment" });
  return { project: group.getByRole("combobox", { name: "Project" }), environment: group.getByRole("combobox", { name: "Environment" }) };
};

/** The label of a select's chosen option. */
const chosen = (page: Page, select: "project" | "environment") => switcher(page)[select].locator("option:checked");

test("the header switches project and environment, the dashboard follows, and the choice is remembered", async ({
  signedIn: page,
  operator,
  bearer,
}) => {
  // The operator's default project (its production) and a second project with production and qa, each with an app.
  const home = uniqueName("home");
  await createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: home } });
  const other = await createProject({ ctx: operator.ctx, input: { name: uniqueName("other") } });
  const otherProduction = await createEnvironment({ ctx: operator.ctx, projectId: other.id, input: { name: "production" } });
  const qa = await createEnvironment({ ctx: operator.ctx, projectId: other.id, input: { name: "qa" } });
  const inOther = uniqueName("otherapp");
  const inQa = uniqueName("qaapp");
  await createApp({ ctx: operator.ctx, envId: otherProduction.id, input: { name: inOther } });
  await createApp({ ctx: operator.ctx, envId: qa.id, input: { name: inQa } });
  const appCard = (name: string) => page.getByRole("heading", { level: 2, name, exact: true });

  // Nothing chosen yet: the first project's production.
  await page.goto("/");
  const { project, environment } = switcher(page);
  await hydrated(project);
  await expect(chosen(page, "environment")).toHaveText("production");
  await expect(appCard(home)).toBeVisible();

  // Another project opens in its production.
  await project.selectOption({ label: other.name });
  await expect(appCard(inOther)).toBeVisible();
  await expect(appCard(home)).toHaveCount(0);
  await expect(chosen(page, "project")).toHaveText(other.name);
  await expect(chosen(page, "environment")).toHaveText("production");

  // Another environment of it.
  await hydrated(environment);
  await environment.selectOption({ label: "qa" });
  await expect(appCard(inQa)).toBeVisible();
  await expect(appCard(inOther)).toHaveCount(0);
  await expect(chosen(page, "environment")).toHaveText("qa");

  // Remembered on the server: a reload (and any other browser) opens in qa.
  await page.reload();
  await expect(chosen(page, "project")).toHaveText(other.name);
  await expect(chosen(page, "environment")).toHaveText("qa");
  await expect(appCard(inQa)).toBeVisible();
  expect(await getCurrentEnvironment({ ctx: operator.ctx })).toMatchObject({ chosen: true, environment: { id: qa.id }, project: { id: other.id } });

  // The API behind it: the choice as the header reads it; an environment that is not the caller's is a 404 like an unknown one.
  expect(await (await bearer.get("/api/v1/me/environment")).json()).toMatchObject({ environment: { id: qa.id, name: "qa" }, project: { id: other.id } });
  const unknown = await bearer.put("/api/v1/me/environment", { data: { environmentId: randomUUID() } });
  expect(unknown.status()).toBe(404);
  expect(await unknown.json()).toEqual({ error: { code: "not_found", message: "environment not found" } });
  const invalid = await bearer.put("/api/v1/me/environment", { data: { environmentId: "qa" } });
  expect(invalid.status()).toBe(400);
  expect(await invalid.json()).toMatchObject({ error: { code: "invalid_input", field: "environmentId" } });
  expect(await getCurrentEnvironment({ ctx: operator.ctx })).toMatchObject({ environment: { id: qa.id } });

  // Back to the first project, which opens in its production again (the next test starts there).
  const first = (await listProjects({ ctx: operator.ctx })).find((p) => p.id === operator.projectId);
  await hydrated(switcher(page).project);
  await switcher(page).project.selectOption({ label: first?.name ?? "" });
  await expect(appCard(home)).toBeVisible();
  await expect(chosen(page, "environment")).toHaveText("production");
});

test("clone production into staging, deploy staging, promote to production: production runs staging's image", async ({
  signedIn: page,
  operator,
  images,
  stack,
}) => {
  // Production's service exists with v1 but was never deployed.
  const seeded = await seedService(operator, { prefix: "promo", deployed: false });
  const { name } = seeded;

  // Clone production in the UI, deploying nothing.
  await page.goto(`/environments/${operator.environmentId}`);
  await expect(page.getByRole("heading", { level: 1, name: "production", exact: true })).toBeVisible();
  const clone = page.getByRole("form", { name: "Clone environment" });
  const cloneButton = clone.getByRole("button", { name: "Clone environment" });
  await hydrated(cloneButton);
  await expect(clone.getByRole("checkbox", { name: "Deploy every service once cloned" })).not.toBeChecked();
  await clone.getByLabel("New environment name").fill("staging");
  await cloneButton.click();
  await expect(page.getByRole("heading", { level: 1, name: "staging", exact: true })).toBeVisible();
  const staging = (await listEnvironments({ ctx: operator.ctx, projectId: operator.projectId })).find((e) => e.name === "staging");
  expect(staging, "the clone is an environment of the same project").toBeDefined();
  const stagingId = staging?.id ?? "";
  await expect(page).toHaveURL(new RegExp(`/environments/${stagingId}$`));
  await expect(chosen(page, "environment")).toHaveText("staging");
  // Its app and service were copied, and nothing deploys until asked.
  const row = page.getByRole("region", { name: seeded.app }).getByRole("row", { name: new RegExp(`^${name}\\b`) });
  await expect(row).toContainText("stopped");
  await expect(row).toContainText(images.v1);

  // On staging's service, promote waits for a successful deploy.
  await row.getByRole("link", { name }).click();
  await expect(page).toHaveURL(new RegExp(`${servicePage({ environmentId: stagingId, name })}$`));
  const promote = page.getByRole("region", { name: "Promote" });
  const toProduction = promote.getByRole("button", { name: "Promote to production" });
  await expect(toProduction).toBeDisabled();
  await expect(toProduction).toHaveAccessibleDescription(/deploy .* here successfully first/);
  await expect(promote.getByRole("button", { name: "Promote to staging" })).toHaveCount(0);

  // Deploy v2 to staging.
  const actions = page.getByRole("region", { name: "Actions" });
  const deploy = actions.getByRole("button", { name: "Deploy", exact: true });
  await hydrated(deploy);
  await actions.getByLabel("Image", { exact: true }).fill(images.v2);
  await deploy.click();
  await expect(page.getByTestId("phase")).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  await expect(page.getByTestId("status-image")).toHaveText(images.v2);

  // Promote to production.
  await expect(toProduction).toBeEnabled();
  await toProduction.click();
  await expect(promote.getByRole("status")).toContainText(`Promoting ${images.v2} to production`);
  await promote.getByRole("link", { name: `Open ${name} in production` }).click();
  await expect(page).toHaveURL(new RegExp(`${servicePage(seeded)}$`));
  await expect(chosen(page, "environment")).toHaveText("production");
  const newest = page.getByRole("table", { name: "Recent releases" }).getByRole("row").nth(1);
  await expect(newest.getByRole("cell").nth(0)).toHaveText("promoted from staging");
  await expect(newest.getByRole("cell").nth(1)).toHaveText(images.v2);
  await expect(newest.getByRole("cell").nth(4)).toHaveText("succeeded", { timeout: DEPLOY_TIMEOUT });
  await expect(page.getByTestId("phase")).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  await expect(page.getByTestId("status-image")).toHaveText(images.v2);

  // Production runs exactly the image staging runs, in a container of its own.
  const v2Id = (await stack.docker.getImage(images.v2).inspect()).Id;
  const productionContainer = (await page.getByTestId("active-container").textContent()) ?? "";
  expect((await stack.docker.getContainer(productionContainer).inspect()).Image).toBe(v2Id);
  await openService(page, { environmentId: stagingId, name });
  const stagingContainer = (await page.getByTestId("active-container").textContent()) ?? "";
  expect(stagingContainer).not.toBe(productionContainer);
  expect((await stack.docker.getContainer(stagingContainer).inspect()).Image).toBe(v2Id);

  // Deleting staging names what goes, and removes its service and its container; production keeps serving.
  const { id: stagingServiceId } = await getService({ ctx: operator.ctx, envId: stagingId, name });
  await page.goto(`/environments/${stagingId}`);
  const remove = page.getByRole("region", { name: "Delete environment" });
  await hydrated(remove.getByRole("button", { name: "Delete environment" }));
  await remove.getByRole("button", { name: "Delete environment" }).click();
  // Every app the clone copied (this file's first test left one in production too), by name, and the one service.
  const stagingApps = (await listApps({ ctx: operator.ctx, envId: stagingId })).map((a) => a.name);
  expect(stagingApps).toContain(seeded.app);
  const appsText = stagingApps.length === 1 ? `app ${stagingApps[0]}` : `apps ${stagingApps.slice(0, -1).join(", ")} and ${stagingApps.at(-1)}`;
  await expect(remove.getByRole("alert").getByRole("paragraph")).toHaveText(
    `Deleting staging removes ${appsText}; service ${name} with its container and secrets; the environment's env vars. This cannot be undone.`,
  );
  await remove.getByRole("button", { name: "Delete staging" }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();
  expect((await listEnvironments({ ctx: operator.ctx, projectId: operator.projectId })).map((e) => e.name)).toEqual(["production"]);
  const filters = JSON.stringify({ label: serviceFilter(stack.env.shortName, stagingServiceId) });
  await waitFor("the worker to remove staging's container", async () => ((await stack.docker.listContainers({ all: true, filters })).length === 0 ? true : undefined), {
    timeoutMs: 30_000,
    intervalMs: 250,
  });
  expect((await stack.docker.getContainer(productionContainer).inspect()).State.Running).toBe(true);
});
