// The charts draw: a service's Resources charts (CPU, memory, network) and the Deploys page's
// bars. Each chart's line has points and a visible stroke, its labels are no larger than the body
// text at 360 and 1280 px wide, and the pointer shows the value under it. Screenshots at both
// widths are attached to the report.
import type { Locator, Page } from "@playwright/test";
import { seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { openService } from "../fixtures/ui";

const WIDTHS = [360, 1280] as const;

/** The computed font size (px) of an element. */
const fontSize = (l: Locator) => l.evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
const bodyFontSize = (page: Page) => fontSize(page.locator("body"));

/** Every label of a chart is at most the body's size, and the chart fits the viewport. */
async function readable(page: Page, chart: Locator, width: number) {
  const body = await bodyFontSize(page);
  const labels = chart.locator(".chart-label, figcaption");
  expect(await labels.count()).toBeGreaterThan(0);
  for (const label of await labels.all()) {
    expect(await fontSize(label), `a label of a chart at ${width} px`).toBeLessThanOrEqual(body);
  }
  // SVG text would scale with the viewBox: there is none, every word is HTML.
  await expect(chart.locator("svg text")).toHaveCount(0);
  const box = await chart.boundingBox();
  expect(box, "the chart is laid out").not.toBeNull();
  expect(box!.width).toBeGreaterThan(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(width + 0.5);
}

test("the Resources charts draw their lines, read at body size at 360 and 1280 px, and show the value under the pointer", async ({
  signedIn: page,
  operator,
  images,
}, testInfo) => {
  void images;
  test.setTimeout(180_000);
  const service = await seedService(operator, { prefix: "charts", deployed: true });
  await openService(page, service);
  const cpu = page.getByTestId("metrics-cpu");
  // The sampler's first reading of a container gives no sample yet; a line needs two samples. The
  // network chart draws rates (the difference of two readings), so its line comes one sample after
  // the others: wait for every chart's, not only the CPU's.
  await expect(async () => {
    await page.reload();
    for (const id of ["metrics-cpu", "metrics-memory", "metrics-network"]) {
      await expect(page.getByTestId(id).locator("path.line-a")).toHaveAttribute("d", /^M[^M]*L/, { timeout: 2_000 });
    }
  }).toPass({ timeout: 120_000, intervals: [2_000, 5_000] });

  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    for (const id of ["metrics-cpu", "metrics-memory", "metrics-network"]) {
      const chart = page.getByTestId(id);
      await expect(chart).toBeVisible();
      const line = chart.locator("path.line-a");
      // A line with points, drawn with a visible stroke.
      await expect(line).toHaveAttribute("d", /^M[\d.]+,[\d.]+L/);
      const stroke = await line.evaluate((el) => ({ color: getComputedStyle(el).stroke, width: parseFloat(getComputedStyle(el).strokeWidth) }));
      expect(stroke.color, `${id}'s line has a stroke`).not.toBe("none");
      expect(stroke.width).toBeGreaterThan(0);
      const drawn = await line.boundingBox();
      expect(drawn && drawn.width, `${id}'s line spans some width`).toBeGreaterThan(width / 10);
      await readable(page, chart, width);
    }
    // The value under the pointer.
    const plot = cpu.getByRole("img");
    const box = await plot.boundingBox();
    await plot.hover({ position: { x: box!.width * 0.9, y: box!.height / 2 } });
    await expect(page.getByTestId("metrics-cpu-value")).toContainText(/CPU \d+(\.\d)?%/);
    expect(await fontSize(page.getByTestId("metrics-cpu-value"))).toBeLessThanOrEqual(await bodyFontSize(page));
    await page.getByRole("region", { name: "Resources (last hour)" }).scrollIntoViewIfNeeded();
    const resources = testInfo.outputPath(`resources-${width}px.png`);
    await page.getByRole("region", { name: "Resources (last hour)" }).screenshot({ path: resources });
    await testInfo.attach(`resources-${width}px`, { path: resources, contentType: "image/png" });
    await page.mouse.move(0, 0);
  }

  // The Deploys page: the fleet's bars (this deploy is one) with labels at body size.
  await page.goto("/deploys");
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    const chart = page.getByTestId("deploy-chart").first();
    await expect(chart.locator("rect.bar-ok")).not.toHaveCount(0);
    await readable(page, chart, width);
    const deploys = testInfo.outputPath(`deploys-${width}px.png`);
    await page.getByRole("region", { name: "Deploys per day: Whole fleet" }).screenshot({ path: deploys });
    await testInfo.attach(`deploys-${width}px`, { path: deploys, contentType: "image/png" });
  }
  // The Service picker's list loads when it is reached for (it is not part of the first load), and
  // choosing this service narrows the bars to its deploy.
  const picker = page.getByLabel("Service", { exact: true });
  await expect(picker.locator("option")).toHaveCount(1);
  await picker.focus();
  const option = picker.locator("option", { hasText: `${service.name} (` });
  await expect(option).toHaveCount(1);
  await picker.selectOption((await option.getAttribute("value"))!);
  const narrowed = page.getByRole("region", { name: new RegExp(`^Deploys per day: ${service.name} \\(`) });
  await expect(narrowed.locator("rect.bar-ok")).not.toHaveCount(0);
  await expect(narrowed).toContainText("1 deployed, 0 failed");
});
