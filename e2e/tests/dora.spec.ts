// The DORA figures on the Deploys page (issue 14, item 4): a real deploy through the worker gives
// the fleet, its environment and its service a deployment frequency, a lead time (from the image's
// build time, which the worker recorded) and a change failure rate, each with its band.
import { seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { hydrated } from "../fixtures/ui";

const BAND = /^(elite|high|medium|low)$/;

test("the Deploys page shows the four DORA figures with their bands for the fleet, each environment and each service", async ({
  signedIn: page,
  operator,
  images: _images,
  bearer,
}) => {
  const seeded = await seedService(operator, { prefix: "dora", deployed: true });

  await page.goto("/deploys");
  await expect(page.getByRole("heading", { level: 1, name: "Deploys" })).toBeVisible();
  const fleet = page.getByRole("region", { name: "DORA figures: whole fleet" });
  // One change went live: a frequency with its band, a lead time from the image's build time, no failures.
  await expect(fleet.getByTestId("dora-frequency")).toContainText("1 change went live");
  await expect(fleet.getByTestId("band-frequency")).toHaveText(BAND);
  await expect(fleet.getByTestId("dora-lead-time").locator(".dora-value")).not.toHaveText(/^—/);
  await expect(fleet.getByTestId("band-lead-time")).toHaveText(BAND);
  await expect(fleet.getByTestId("dora-change-failure").locator(".dora-value")).toHaveText(/^0%/);
  await expect(fleet.getByTestId("band-change-failure")).toHaveText("elite");
  // Nothing failed, so nothing was restored.
  await expect(fleet.getByTestId("dora-restore").locator(".dora-value")).toHaveText(/^— no data$/);

  const byService = page.getByRole("table", { name: "DORA by service" });
  const row = byService.getByRole("row").filter({ hasText: seeded.name });
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell").nth(3)).toHaveText(/^0% elite$/);
  await expect(page.getByRole("table", { name: "DORA by environment" }).getByRole("row")).toHaveCount(2);

  // The window picker asks for another window; the service's deploy is in the last 7 days too.
  const picker = page.getByLabel("DORA window");
  await hydrated(picker);
  await picker.selectOption("7d");
  await expect(page.getByRole("table", { name: "DORA by service" }).getByRole("row").filter({ hasText: seeded.name })).toHaveCount(1);

  // The API says the same, band by band.
  const res = await bearer.get("/api/v1/metrics/dora?window=7d");
  expect(res.status()).toBe(200);
  const body = (await res.json()) as { fleet: { deploys: number; leadTimeMs: number | null; changeFailureRate: number; changeFailureBand: string } };
  expect(body.fleet).toMatchObject({ deploys: 1, changeFailureRate: 0, changeFailureBand: "elite" });
  expect(body.fleet.leadTimeMs).toBeGreaterThan(0);
  expect((await bearer.get("/api/v1/metrics/dora?window=1y")).status()).toBe(400);
});
