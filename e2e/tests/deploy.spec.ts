import { listServices } from "@levelrail/services/service/view";
import { uniqueName } from "../fixtures/stack";
import { IMAGE_HEALTH_PATH, IMAGE_PORT } from "../fixtures/images";
import { expect, test } from "../fixtures/test";
import { createApp, hydrated, serviceApiPath, servicePage } from "../fixtures/ui";

/** A deploy (create, start, probe, cut over) takes seconds; allow for a loaded machine. */
const DEPLOY_TIMEOUT = 60_000;


test("a bad service form shows the field that is wrong and creates nothing", async ({ signedIn: page, operator, bearer }) => {
  const app = uniqueName("shop");
  await page.goto("/");
  await createApp(page, app);

  const form = page.getByRole("form", { name: "New service" });
  const submit = form.getByRole("button", { name: "Create service" });
  await hydrated(submit);
  const name = form.getByLabel("Name", { exact: true });
  const port = form.getByLabel("Port", { exact: true });
  await name.fill("Web_App");
  await form.getByLabel("App", { exact: true }).selectOption(app);
  await form.getByLabel("Image", { exact: true }).fill("levelrail-e2e/web:v1");
  await port.fill("70000");
  await submit.click();

  await expect(name).toHaveAttribute("aria-invalid", "true");
  await expect(name).toHaveAccessibleDescription(/must be a DNS label/);
  await expect(port).toHaveAttribute("aria-invalid", "true");
  await expect(port).toHaveAccessibleDescription("must be 1-65535");
  await expect(form.getByLabel("Image", { exact: true })).toHaveAttribute("aria-invalid", "false");
  await expect(form.getByRole("status")).toHaveCount(0);

  // Fixing one field clears its error on the next try; the other still blocks the form.
  await name.fill("web-app");
  await submit.click();
  await expect(name).toHaveAttribute("aria-invalid", "false");
  await expect(port).toHaveAccessibleDescription("must be 1-65535");

  expect(await listServices({ ctx: operator.ctx, envId: operator.environmentId, app })).toEqual([]);

  // The API refuses the same input with a 400 naming the field, and writes nothing either.
  const refused = await bearer.post(`/api/v1/environments/${operator.environmentId}/services`, {
    data: { name: "web-app", app, image: "levelrail-e2e/web:v1", port: 70000 },
  });
  expect(refused.status()).toBe(400);
  expect(await refused.json()).toEqual({ error: { code: "invalid_input", field: "port", message: expect.stringContaining("port") } });
  expect(await listServices({ ctx: operator.ctx, envId: operator.environmentId, app })).toEqual([]);
});

test("create an app and a service, deploy, restart and deploy a new image, all watched live", async ({
  signedIn: page,
  operator,
  images,
  bearer,
  stack,
}) => {
  const app = uniqueName("shop");
  const service = uniqueName("web");
  await page.goto("/");
  await createApp(page, app);

  const form = page.getByRole("form", { name: "New service" });
  await hydrated(form.getByRole("button", { name: "Create service" }));
  await form.getByLabel("Name", { exact: true }).fill(service);
  await form.getByLabel("App", { exact: true }).selectOption(app);
  await form.getByLabel("Image", { exact: true }).fill(images.v1);
  await form.getByLabel("Port", { exact: true }).fill(String(IMAGE_PORT));
  await form.getByLabel("Health path", { exact: true }).fill(IMAGE_HEALTH_PATH);
  await form.getByLabel("Strategy", { exact: true }).selectOption("blue-green");
  await form.getByLabel("Env vars", { exact: true }).fill("GREETING=hello\n# a comment\nexport LOG_LEVEL=\"info\"");
  await form.getByRole("button", { name: "Create service" }).click();
  await expect(form.getByRole("status")).toContainText(`Created ${service}`);
  await expect(page.getByRole("region", { name: app }).getByRole("row", { name: new RegExp(`^${service}\\b`) })).toContainText(images.v1);

  await form.getByRole("status").getByRole("link", { name: service }).click();
  await expect(page.getByRole("heading", { level: 1, name: service })).toBeVisible();
  // The service's page lives under the environment it was created in (the operator's current one).
  const ref = { environmentId: operator.environmentId, name: service };
  await expect(page).toHaveURL(new RegExp(`${servicePage(ref)}$`));
  const actions = page.getByRole("region", { name: "Actions" });
  const deploy = actions.getByRole("button", { name: "Deploy", exact: true });
  await hydrated(deploy);
  const phase = page.getByTestId("phase");
  const active = page.getByTestId("active-container");
  const history = page.getByRole("table", { name: "Recent releases" });
  await expect(phase).toHaveText("stopped");

  // Record every phase the page shows from now on. The record lives on this document's window,
  // so finding it complete at the end also proves the page was never reloaded.
  await page.evaluate(() => {
    const current = () => document.querySelector('[data-testid="phase"]')?.textContent ?? "";
    const seen = [current()];
    (window as { e2ePhases?: string[] }).e2ePhases = seen;
    new MutationObserver(() => {
      if (seen.at(-1) !== current()) seen.push(current());
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const phasesSeen = () => page.evaluate(() => (window as { e2ePhases?: string[] }).e2ePhases);

  await deploy.click();
  await expect(phase).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  // The phase only moved forward (a deploy quicker than the page's 1 s poll may skip a step).
  const firstDeploy = (await phasesSeen()) ?? [];
  expect(firstDeploy[0]).toBe("stopped");
  expect(firstDeploy.at(-1)).toBe("running");
  const rank = firstDeploy.map((p) => ["stopped", "pending", "deploying", "running"].indexOf(p));
  expect(rank.every((r, i) => r >= 0 && r >= (rank[i - 1] ?? 0)), `phases seen: ${firstDeploy.join(" → ")}`).toBe(true);
  await expect(active).toHaveText(new RegExp(`^${stack.env.shortName}-${service}-[0-9a-f]{12}$`));
  const first = (await active.textContent()) ?? "";
  const inspected = await stack.docker.getContainer(first).inspect();
  expect(inspected.State.Running).toBe(true);
  expect(inspected.Config.Env).toEqual(expect.arrayContaining(["GREETING=hello", "LOG_LEVEL=info"]));
  await expect(history.getByRole("row")).toHaveCount(2);
  await expect(history.getByRole("row").nth(1)).toContainText("succeeded");

  await actions.getByRole("button", { name: "Restart" }).click();
  await expect(active).not.toHaveText(first, { timeout: DEPLOY_TIMEOUT });
  await expect(active).toHaveText(new RegExp(`^${stack.env.shortName}-${service}-[0-9a-f]{12}$`));
  await expect(phase).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  const second = (await active.textContent()) ?? "";
  // Blue-green: the old container is gone once the new one serves.
  await expect
    .poll(() => stack.docker.listContainers({ all: true, filters: JSON.stringify({ name: [first] }) }).then((l) => l.length))
    .toBe(0);
  await expect(history.getByRole("row")).toHaveCount(3);
  await expect(history.getByRole("row").nth(1)).toContainText("restart");

  await actions.getByLabel("Image", { exact: true }).fill(images.v2);
  await deploy.click();
  const newest = history.getByRole("row").nth(1);
  await expect(history.getByRole("row")).toHaveCount(4);
  await expect(newest.getByRole("cell").nth(1)).toHaveText(images.v2);
  await expect(newest.getByRole("cell").nth(4)).toHaveText("succeeded", { timeout: DEPLOY_TIMEOUT });
  // Kind, image, who, when, outcome, duration.
  await expect(newest.getByRole("cell").nth(0)).toHaveText("deploy");
  await expect(newest.getByRole("cell").nth(2)).toHaveText(operator.email);
  await expect(newest.getByRole("cell").nth(3)).not.toBeEmpty();
  await expect(newest.getByRole("cell").nth(5)).toHaveText(/^\d+(\.\d)? m?s$/);
  // The history and the status are polled apart: wait for the status to show the new container
  // before asking for "running", or the restart's "running" (still on screen) would pass for it.
  await expect(page.getByTestId("status-image")).toHaveText(images.v2);
  await expect(active).not.toHaveText(second, { timeout: DEPLOY_TIMEOUT });
  await expect(phase).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
  const third = (await active.textContent()) ?? "";
  // A deploy resolves the tag once and runs exactly that image.
  const v2Id = (await stack.docker.getImage(images.v2).inspect()).Id;
  expect((await stack.docker.getContainer(third).inspect()).Image).toBe(v2Id);

  // Still the same document, which saw the restart and the new deploy go through their phases.
  const all = (await phasesSeen()) ?? [];
  expect(all.slice(0, firstDeploy.length)).toEqual(firstDeploy);
  expect(all).not.toContain("failed");
  expect(all.at(-1)).toBe("running");

  // The API, with a bearer token, tells the same story.
  const status = await bearer.get(serviceApiPath(ref, "/status"));
  expect(status.status()).toBe(200);
  expect(await status.json()).toMatchObject({ phase: "running", image: images.v2, activeContainer: third });
  const deploys = await bearer.get(serviceApiPath(ref, "/deploys"));
  expect(await deploys.json()).toMatchObject([
    { kind: "deploy", image: images.v2, outcome: "succeeded" },
    { kind: "restart", image: images.v1, outcome: "succeeded" },
    { kind: "deploy", image: images.v1, outcome: "succeeded" },
  ]);
});
