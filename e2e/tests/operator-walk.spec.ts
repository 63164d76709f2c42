// An operator's first hour, end to end, using only what the pages show: roles, labels and visible
// text. After signing in no URL is typed and no API is called; every step is a click or a keystroke
// on what the previous page offered. Its wall time is printed (and kept as an annotation).
import type { Page } from "@playwright/test";
import { DEPLOY_TIMEOUT } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

/** The newest row of the service page's "Recent releases". */
const newestRelease = (page: Page) => page.getByRole("table", { name: "Recent releases" }).getByRole("row").nth(1);

/** The page's link to an environment (its crumbs: "project / environment / service"). */
const environmentLink = (page: Page, environment: string) => page.getByRole("main").getByRole("link", { name: environment, exact: true });

/** Waits for the service page's status to say `phase` with `image` serving. */
async function serving(page: Page, image: string) {
  await expect(page.getByTestId("status-image")).toHaveText(image, { timeout: DEPLOY_TIMEOUT });
  await expect(page.getByTestId("phase")).toHaveText("running", { timeout: DEPLOY_TIMEOUT });
}

/** Clicks a button of the service page's Actions once it works. */
async function act(page: Page, name: string) {
  const button = page.getByRole("region", { name: "Actions" }).getByRole("button", { name, exact: true });
  await hydrated(button);
  await button.click();
}

test("operator walk: sign in, create and deploy, clone to staging, deploy there, promote, roll back", async ({ page, operator, images }, testInfo) => {
  test.setTimeout(6 * DEPLOY_TIMEOUT);
  const app = uniqueName("walk");
  const name = uniqueName("web");
  const started = Date.now();

  // 1. Sign in.
  await page.goto("/login");
  const signIn = page.getByRole("button", { name: "Sign in" });
  await hydrated(signIn);
  await page.getByLabel("Email").fill(operator.email);
  await page.getByLabel("Password").fill(operator.password);
  await signIn.click();
  await expect(page.getByRole("heading", { level: 1, name: "Apps" })).toBeVisible();

  // 2. Create an app and a service, then deploy it.
  const newApp = page.getByRole("form", { name: "New app" });
  await hydrated(newApp.getByRole("button", { name: "Create app" }));
  await newApp.getByLabel("App name").fill(app);
  await newApp.getByRole("button", { name: "Create app" }).click();
  await expect(page.getByRole("heading", { level: 2, name: app, exact: true })).toBeVisible();

  const newService = page.getByRole("form", { name: "New service" });
  await newService.getByLabel("Name", { exact: true }).fill(name);
  await newService.getByLabel("App", { exact: true }).selectOption(app);
  await newService.getByLabel("Image", { exact: true }).fill(images.v1);
  await newService.getByLabel("Port", { exact: true }).fill("8080");
  await newService.getByLabel("Health path").fill("/healthz");
  await newService.getByLabel("Memory limit (MiB)").fill("64");
  await newService.getByRole("button", { name: "Create service" }).click();
  await newService.getByRole("status").getByRole("link", { name }).click();
  await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
  await act(page, "Deploy");
  await serving(page, images.v1);

  // 3. Clone production to staging, from the environment's page (the crumbs link to it).
  await environmentLink(page, "production").click();
  await expect(page.getByRole("heading", { level: 1, name: "production", exact: true })).toBeVisible();
  const clone = page.getByRole("form", { name: "Clone environment" });
  await hydrated(clone.getByRole("button", { name: "Clone environment" }));
  await clone.getByLabel("New environment name").fill("staging");
  await clone.getByRole("button", { name: "Clone environment" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "staging", exact: true })).toBeVisible();

  // 4. Deploy a new image in staging.
  await page.getByRole("region", { name: app }).getByRole("link", { name, exact: true }).click();
  await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
  await expect(environmentLink(page, "staging")).toBeVisible();
  const image = page.getByRole("region", { name: "Actions" }).getByLabel("Image", { exact: true });
  await hydrated(image);
  await image.fill(images.v2);
  await act(page, "Deploy");
  await serving(page, images.v2);

  // 5. Promote it to production, and follow it there.
  const promote = page.getByRole("region", { name: "Promote" });
  await expect(promote.getByRole("button", { name: "Promote to production" })).toBeEnabled({ timeout: DEPLOY_TIMEOUT });
  await promote.getByRole("button", { name: "Promote to production" }).click();
  await promote.getByRole("link", { name: `Open ${name} in production` }).click();
  await expect(environmentLink(page, "production")).toBeVisible();
  await expect(newestRelease(page).getByRole("cell").nth(0)).toHaveText("promoted from staging");
  await expect(newestRelease(page).getByRole("cell").nth(4)).toHaveText("succeeded", { timeout: DEPLOY_TIMEOUT });
  await serving(page, images.v2);

  // 6. Roll production back: v1 serves again.
  await act(page, "Rollback");
  await expect(newestRelease(page).getByRole("cell").nth(0)).toHaveText("rollback");
  await expect(newestRelease(page).getByRole("cell").nth(4)).toHaveText("succeeded", { timeout: DEPLOY_TIMEOUT });
  await serving(page, images.v1);

  const seconds = (Date.now() - started) / 1000;
  testInfo.annotations.push({ type: "wall time", description: `${seconds.toFixed(1)} s` });
  console.log(`operator walk wall time: ${seconds.toFixed(1)} s`);
});
