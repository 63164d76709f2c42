// The service page's tabs (issue 14, item 6): each is reached by its URL (`?tab=`), a reload or a
// link keeps it, and the tab list works from the keyboard (the WAI-ARIA tabs pattern).
import { seedService } from "../fixtures/services";
import { expect, test } from "../fixtures/test";
import { type ServiceTab, hydrated, openService, serviceTab, servicePage } from "../fixtures/ui";

/** What each tab shows, by a heading only that tab has. */
const SHOWS: Record<ServiceTab, string> = {
  overview: "Actions",
  deploys: "Release history",
  builds: "Builds",
  logs: "Logs",
  environment: "Effective environment",
  hooks: "Hooks and domains",
  settings: "Configuration",
};

test("every tab of the service page is reached by its URL and survives a reload", async ({ signedIn: page, operator }) => {
  const seeded = await seedService(operator, { prefix: "tabs", deployed: false });
  for (const tab of Object.keys(SHOWS) as ServiceTab[]) {
    await openService(page, seeded, tab);
    await expect(page).toHaveURL(new RegExp(`${servicePage(seeded)}${tab === "overview" ? "" : `\\?tab=${tab}`}$`));
    await expect(page.getByRole("tab", { selected: true })).toHaveCount(1);
    const panel = page.getByRole("tabpanel");
    await expect(panel.getByRole("heading", { level: 2, name: SHOWS[tab], exact: true })).toBeVisible();
    for (const other of Object.keys(SHOWS) as ServiceTab[]) {
      if (SHOWS[other] !== SHOWS[tab]) await expect(panel.getByRole("heading", { level: 2, name: SHOWS[other], exact: true })).toHaveCount(0);
    }
  }
  // The tab slots the Logs view and the metrics charts fill.
  await openService(page, seeded, "logs");
  await expect(page.getByRole("tabpanel").getByRole("region", { name: "Logs", exact: true })).toBeVisible();
  await page.reload();
  await expect(serviceTab(page, "logs")).toHaveAttribute("aria-selected", "true");
  // An unknown tab opens Overview.
  await page.goto(`${servicePage(seeded)}?tab=nope`);
  await expect(serviceTab(page, "overview")).toHaveAttribute("aria-selected", "true");
  await expect(page.getByRole("tabpanel").getByRole("heading", { name: "Resources (last hour)", exact: true })).toBeVisible();
});

test("the tabs work from the keyboard, switch in place, and Back returns to the previous one", async ({ signedIn: page, operator }) => {
  const seeded = await seedService(operator, { prefix: "tabkeys", deployed: false });
  await openService(page, seeded);
  await page.evaluate(() => void ((window as { e2eSameDocument?: boolean }).e2eSameDocument = true));
  const overview = serviceTab(page, "overview");
  // Only the selected tab is in the Tab order.
  await expect(overview).toHaveAttribute("tabindex", "0");
  await expect(serviceTab(page, "deploys")).toHaveAttribute("tabindex", "-1");
  await overview.focus();

  await page.keyboard.press("ArrowRight");
  await expect(serviceTab(page, "deploys")).toBeFocused();
  await expect(serviceTab(page, "deploys")).toHaveAttribute("aria-selected", "true");
  await expect(page).toHaveURL(/\?tab=deploys$/);
  await expect(page.getByRole("tabpanel", { name: "Deploys" }).getByRole("heading", { name: "Release history" })).toBeVisible();

  await page.keyboard.press("End");
  await expect(serviceTab(page, "settings")).toBeFocused();
  await expect(page).toHaveURL(/\?tab=settings$/);
  await page.keyboard.press("ArrowRight"); // wraps
  await expect(serviceTab(page, "overview")).toBeFocused();
  await expect(page).toHaveURL(new RegExp(`${servicePage(seeded)}$`));
  await page.keyboard.press("ArrowLeft"); // wraps back
  await expect(serviceTab(page, "settings")).toBeFocused();
  await page.keyboard.press("Home");
  await expect(serviceTab(page, "overview")).toHaveAttribute("aria-selected", "true");

  // Tab moves from the tab list into the panel's content.
  await page.keyboard.press("Tab");
  await expect(page.getByRole("tabpanel")).toBeFocused();

  // A click works too; Back goes to the tab before, all in this one document.
  await serviceTab(page, "environment").click();
  await expect(page).toHaveURL(/\?tab=environment$/);
  await hydrated(page.getByRole("region", { name: "Service env" }).getByRole("button", { name: "Add variable" }));
  await page.goBack();
  await expect(serviceTab(page, "overview")).toHaveAttribute("aria-selected", "true");
  expect(await page.evaluate(() => (window as { e2eSameDocument?: boolean }).e2eSameDocument)).toBe(true);

  // Each tab is a real link: it names its URL.
  await expect(serviceTab(page, "hooks")).toHaveAttribute("href", `${servicePage(seeded)}?tab=hooks`);
});
