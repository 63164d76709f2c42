import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getService } from "@levelrail/services/service/view";
import { E2E_IMAGES } from "../fixtures/images";
import { DEPLOY_TIMEOUT, seedService } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, showTab } from "../fixtures/ui";

test("a domain added in the UI is routed through Caddy to the service's new version", async ({
  signedIn: page,
  operator,
  images,
  stack,
  request,
}) => {
  const seeded = await seedService(operator, { prefix: "domains", deployed: true });
  const service = seeded.name;
  // `*.localhost` is served on plain HTTP and resolves to loopback, in Chromium too.
  const domain = `${uniqueName("shop")}.localhost`;
  const url = `http://${domain}:${stack.env.ingressHttpPort}/`;
  await openService(page, seeded);
  const phase = page.getByTestId("phase");
  await expect(phase).toHaveText("running");

  await showTab(page, "hooks");
  const config = page.getByRole("region", { name: "Hooks and domains" });
  const form = config.getByRole("form", { name: "Hooks and routing" });
  const save = form.getByRole("button", { name: "Save hooks and routing" });
  await hydrated(save);
  await form.getByLabel("Domains", { exact: true }).fill(domain);
  await save.click();
  await expect(config.getByRole("status")).toHaveText("Saved hooks and routing");
  expect((await getService({ ctx: operator.ctx, envId: operator.ctx.envId, name: service })).domains).toEqual([domain]);

  // Deploy v2, so the answer through the domain shows the deploy went through.
  await showTab(page, "overview");
  const actions = page.getByRole("region", { name: "Actions" });
  await actions.getByLabel("Image", { exact: true }).fill(images.v2);
  await actions.getByRole("button", { name: "Deploy", exact: true }).click();
  const newest = page.getByRole("table", { name: "Recent releases" }).getByRole("row").nth(1);
  await expect(newest.getByRole("cell").nth(1)).toHaveText(images.v2);
  await expect(newest.getByRole("cell").nth(4)).toHaveText("succeeded", { timeout: DEPLOY_TIMEOUT });
  await expect(phase).toHaveText("running");
  await expect(page.getByTestId("status-image")).toHaveText(images.v2);

  // The status card links the domain at the ingress port, and says once its route is live.
  const status = page.getByRole("region", { name: "Status" });
  const link = status.getByRole("link", { name: url, exact: true });
  await expect(link).toHaveAttribute("href", url);
  const route = status.getByRole("listitem").filter({ has: page.getByRole("link", { name: url, exact: true }) });
  await expect(route.getByText("route live", { exact: true })).toBeVisible({ timeout: DEPLOY_TIMEOUT });

  // Caddy (its admin API on loopback) has the product's one catch-all route, which names no domain…
  // (It answers only requests whose Origin is its own address: enforce_origin.)
  const caddyRoute = await request.get(`${stack.env.caddyAdmin}/id/${stack.env.shortName}-ingress`, { headers: { Origin: new URL(stack.env.caddyAdmin).origin } });
  expect(caddyRoute.status()).toBe(200);
  expect(JSON.stringify(await caddyRoute.json())).not.toContain(domain);
  // …the data plane's state (which Caddy asks per request) maps the domain to the service…
  const state = JSON.parse(readFileSync(join(stack.env.dataDir, "dataplane", "state.json"), "utf8")) as { domains: Record<string, string> };
  expect(Object.keys(state.domains)).toContain(domain);

  // …and the ingress port answers for the domain with the service's body.
  await expect
    .poll(
      async () => {
        const res = await request.get(`http://127.0.0.1:${stack.env.ingressHttpPort}/`, { headers: { Host: domain }, timeout: 5_000 });
        return `${res.status()} ${await res.text()}`;
      },
      { message: `GET ${url} through Caddy` },
    )
    .toBe(`200 ${E2E_IMAGES.v2.body}`);

  // The link on the page opens it in the browser.
  const opened = page.waitForEvent("popup");
  await link.click();
  const tab = await opened;
  await expect(tab.getByText(E2E_IMAGES.v2.body.trim(), { exact: true })).toBeVisible();
  expect(tab.url()).toBe(url);
  await tab.close();
});
