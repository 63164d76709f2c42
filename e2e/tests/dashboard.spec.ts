// What an operator noticed on the dashboard and around it: names sort naturally (s12 before s100),
// a filter by name and phase, memory and CPU limits on the create form, and Settings' tier
// selectors starting at the current environment.
import type { Page } from "@playwright/test";
import { createApp } from "@levelrail/services/app/app";
import { createEnvironment } from "@levelrail/services/project/environment";
import { getService } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

const servicesOf = (page: Page, app: string) => page.getByRole("region", { name: app }).getByRole("row").locator("td:first-child");

test("the dashboard sorts names naturally and filters by name and phase", async ({ signedIn: page, operator }) => {
  const app = uniqueName("nat");
  await createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: app } });
  for (const name of ["s100", "s12", "s2", "s1"]) {
    await createService({ ctx: operator.ctx, envId: operator.environmentId, input: { name, app, image: "registry.example.com/x:1", port: 8080 } });
  }
  await page.goto("/");
  await expect(servicesOf(page, app)).toHaveText(["s1", "s2", "s12", "s100"]);

  const name = page.getByLabel("Filter by name");
  await hydrated(name);
  await name.fill("s1");
  await expect(servicesOf(page, app)).toHaveText(["s1", "s12", "s100"]);
  const phase = page.getByLabel("Phase", { exact: true });
  await phase.selectOption("running");
  await expect(page.getByText("No service matches the filter.")).toBeVisible();
  await expect(page.getByRole("region", { name: app })).toHaveCount(0);
  await phase.selectOption("stopped");
  await expect(servicesOf(page, app)).toHaveText(["s1", "s12", "s100"]);
  await name.fill("");
  await phase.selectOption("");
  await expect(servicesOf(page, app)).toHaveText(["s1", "s2", "s12", "s100"]);
});

test("the create form sets memory and CPU limits; Settings' selectors start at the current environment", async ({ signedIn: page, operator }) => {
  const app = uniqueName("lim");
  const name = uniqueName("web");
  await createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: app } });
  await page.goto("/");
  const form = page.getByRole("form", { name: "New service" });
  await hydrated(form.getByRole("button", { name: "Create service" }));
  await form.getByLabel("Name", { exact: true }).fill(name);
  await form.getByLabel("App", { exact: true }).selectOption(app);
  await form.getByLabel("Image", { exact: true }).fill("registry.example.com/x:1");
  await form.getByLabel("Port", { exact: true }).fill("8080");
  await form.getByLabel("Memory limit (MiB)").fill("8");
  await form.getByLabel("CPU limit").fill("0.5");
  await form.getByRole("button", { name: "Create service" }).click();
  // The schema's own words, under the field.
  await expect(form.getByRole("alert")).toHaveText("must be at least 16 MiB");
  await form.getByLabel("Memory limit (MiB)").fill("64");
  await form.getByRole("button", { name: "Create service" }).click();
  await expect(form.getByRole("status")).toContainText(`Created ${name}`);
  expect((await getService({ ctx: operator.ctx, envId: operator.environmentId, name })).resources).toMatchObject({ memoryMb: 64, cpus: 0.5 });

  // Settings follows the header's environment.
  const staging = await createEnvironment({ ctx: operator.ctx, projectId: operator.projectId, input: { name: "staging" } });
  const header = page.getByRole("banner").getByRole("group", { name: "Project and environment" });
  const environment = header.getByRole("combobox", { name: "Environment" });
  await hydrated(environment);
  await page.reload();
  await hydrated(environment);
  await environment.selectOption({ label: "staging" });
  await expect(environment.locator("option:checked")).toHaveText("staging");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Settings" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Settings" })).toBeVisible();
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Env tiers" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Env tiers" })).toBeVisible();
  await expect(page.getByRole("main").getByRole("combobox", { name: "Environment", exact: true }).locator("option:checked")).toHaveText("staging");
  await expect(page.getByRole("region", { name: "Environment env" })).toContainText(`/ ${staging.name}`);
  // Back to production for the tests after this one.
  await hydrated(environment);
  await environment.selectOption({ label: "production" });
  await expect(page.getByRole("main").getByRole("combobox", { name: "Environment", exact: true }).locator("option:checked")).toHaveText("production");
});

test("a first load gets the build's JavaScript and CSS as brotli and prefetches no page until a link is reached for", async ({ signedIn: page, operator }) => {
  const app = uniqueName("weight");
  await createApp({ ctx: operator.ctx, envId: operator.environmentId, input: { name: app } });
  const statics: { url: string; encoding: string | undefined; bytes: number }[] = [];
  const prefetches: string[] = [];
  page.on("request", (req) => {
    if (req.headers()["next-router-prefetch"]) prefetches.push(req.url());
  });
  page.on("response", async (res) => {
    const url = new URL(res.url());
    if (!url.pathname.startsWith("/_next/static/") || !/\.(js|css)$/.test(url.pathname) || res.status() !== 200) return;
    const body = await res.body().catch(() => null);
    statics.push({ url: url.pathname, encoding: (await res.allHeaders())["content-encoding"], bytes: body?.length ?? 0 });
  });
  await page.goto("/");
  const nodes = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Nodes" });
  await hydrated(nodes);
  await expect(page.getByRole("region", { name: app })).toBeVisible();
  await page.waitForLoadState("networkidle");
  // Every script and stylesheet over 1 kB came compressed with brotli (written once at build time).
  const large = statics.filter((s) => s.bytes > 1024);
  expect(large.length, "the page loaded the framework's chunks").toBeGreaterThan(3);
  for (const s of large) expect(s.encoding, s.url).toBe("br");
  // Links in view (the header's, the app's card) are not prefetched; pointing at one is.
  expect(prefetches).toEqual([]);
  await nodes.hover();
  await expect.poll(() => prefetches.some((u) => new URL(u).pathname === "/nodes"), { message: "hovering Nodes prefetches it" }).toBe(true);
  await nodes.click();
  await expect(page.getByRole("heading", { level: 1, name: "Nodes" })).toBeVisible();
});
