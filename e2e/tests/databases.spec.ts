import type { Locator, Page } from "@playwright/test";
import { POSTGRES_TEST_IMAGE } from "@levelrail/testkit/postgres-image";
import { seedService } from "../fixtures/services";
import { uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { hydrated, openService, rowOf } from "../fixtures/ui";

/** A database's page in the UI. */
const databasePage = (environmentId: string, name: string) => `/environments/${environmentId}/databases/${name}`;

/** Starting PostgreSQL (initdb on a fresh volume) takes seconds; a backup also restores it into a throwaway copy. */
const DATABASE_TIMEOUT = 120_000;

/** Opens a database's page and waits until its controls work. */
async function openDatabase(page: Page, environmentId: string, name: string): Promise<void> {
  await page.goto(databasePage(environmentId, name));
  await expect(page.getByRole("heading", { level: 1, name, exact: true })).toBeVisible();
  await hydrated(page.getByRole("button", { name: "Back up now" }));
}

/** The backups table's row of the newest backup. */
const newestBackup = (page: Page): Locator => page.getByRole("table", { name: "Backups" }).getByRole("row").nth(1);

test.describe.configure({ timeout: 420_000 });

test("a database is created, attached on a service's page, backed up and verified, then restored into a new one", async ({
  signedIn: page,
  operator,
  images: _images,
  postgresImage: _postgresImage,
  s3,
}) => {
  const envId = operator.environmentId;
  const service = await seedService(operator, { prefix: "dbs", deployed: false });
  const name = uniqueName("shop-db");
  const restored = uniqueName("restored");
  const targetName = uniqueName("s3");

  // A backup target pointing at the test S3 server, added on the Settings page.
  await page.goto("/settings");
  const targets = page.getByRole("region", { name: "Backup targets" });
  await hydrated(targets.getByRole("button", { name: "Add backup target" }));
  await targets.getByLabel("Name").fill(targetName);
  await targets.getByLabel("Endpoint").fill(s3.endpoint);
  await targets.getByLabel("Bucket").fill(s3.bucket);
  await targets.getByLabel("Region").fill(s3.region);
  await targets.getByLabel("Access key").fill(s3.accessKey);
  await targets.getByLabel("Secret key").fill(s3.secretKey);
  await targets.getByRole("button", { name: "Add backup target" }).click();
  await expect(rowOf(targets.getByRole("table"), targetName)).toBeVisible();

  // The environment's page: a bad name is refused naming the field, then the database is created and starts.
  await page.goto(`/environments/${envId}`);
  const form = page.getByRole("form", { name: "New database" });
  await hydrated(form.getByRole("button", { name: "Create database" }));
  await expect(form.getByLabel("PostgreSQL version")).toHaveValue(/^\d+$/);
  await form.getByLabel("Database name").fill("Shop_DB");
  await form.getByRole("button", { name: "Create database" }).click();
  await expect(form.getByLabel("Database name")).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByRole("alert")).toHaveText(/must be a DNS label/);
  await form.getByLabel("Database name").fill(name);
  await form.getByLabel("PostgreSQL version").fill("15");
  await form.getByLabel("Image (optional)").fill(POSTGRES_TEST_IMAGE);
  await form.getByRole("button", { name: "Create database" }).click();
  await expect(form.getByRole("status")).toContainText(`Created ${name}`);
  const databases = page.getByRole("region", { name: "Databases" });
  await expect(databases.getByTestId(`database-phase-${name}`)).toHaveText("running", { timeout: DATABASE_TIMEOUT });

  // The service's page: attach it under the default key; the effective env names the source and hides the value.
  await openService(page, service);
  const attachments = page.getByRole("region", { name: "Databases" });
  await attachments.getByLabel("Database", { exact: true }).selectOption(name);
  await expect(attachments.getByLabel("Env key")).toHaveValue("DATABASE_URL");
  await attachments.getByRole("button", { name: "Attach database" }).click();
  await expect(rowOf(attachments.getByRole("table"), "DATABASE_URL")).toContainText(name);
  const effective = rowOf(page.getByRole("table", { name: "Effective environment" }), "DATABASE_URL").getByRole("cell");
  await expect(effective.nth(2)).toHaveText("database");
  await expect(effective.nth(1)).toHaveText("••••••");

  // The database's page: connection facts without a password, who attaches it, and a schedule whose cron is checked as typed.
  await openDatabase(page, envId, name);
  await expect(page.getByTestId("database-phase")).toHaveText("running");
  const connection = page.getByRole("region", { name: "Connection" });
  await expect(connection).toContainText("never shown");
  await expect(rowOf(connection.getByRole("table", { name: "Attached by" }), service.name)).toContainText("DATABASE_URL");
  const schedule = page.getByRole("form", { name: "Backup schedule" });
  await schedule.getByLabel("Cron").fill("0 3 * *");
  await expect(schedule.getByRole("alert")).toHaveText(/must have 5 fields/);
  await schedule.getByLabel("Cron").fill("0 3 * * *");
  await expect(schedule.getByRole("alert")).toHaveCount(0);

  // Back up now (no schedule yet: the target is picked here), and watch it become verified.
  const backupNow = page.getByRole("form", { name: "Back up now" });
  await backupNow.getByLabel("Backup target").selectOption({ label: targetName });
  await backupNow.getByRole("button", { name: "Back up now" }).click();
  const backup = newestBackup(page);
  await expect(backup.getByTestId("backup-status")).toHaveText("verified", { timeout: DATABASE_TIMEOUT });
  await expect(backup.locator("[data-sha256]")).toHaveAttribute("data-sha256", /^[0-9a-f]{64}$/);
  await expect(backup.getByRole("cell").nth(2)).toHaveText(/\d+(\.\d)? (B|KiB|MiB)/);
  await expect(backup.getByRole("cell").nth(1)).toHaveText("manual");

  // Restore it into a new database, and see that one run.
  await backup.getByRole("button", { name: "Restore…" }).click();
  const restore = page.getByRole("form", { name: /^Restore the backup of/ });
  await restore.getByLabel("New database name").fill(restored);
  await restore.getByRole("button", { name: "Restore into new database" }).click();
  await restore.getByRole("status").getByRole("link", { name: restored }).click();
  await expect(page.getByRole("heading", { level: 1, name: restored, exact: true })).toBeVisible();
  await expect(page.getByTestId("database-phase")).toHaveText("running", { timeout: DATABASE_TIMEOUT });
  await expect(page.getByRole("table", { name: "Restores" }).getByTestId("restore-status").first()).toHaveText("succeeded");

  // Delete the restored one with its data: its name typed, "also delete its data" ticked.
  await hydrated(page.getByRole("button", { name: "Delete database" }));
  await page.getByRole("button", { name: "Delete database" }).click();
  const del = page.getByRole("form", { name: `Delete ${restored}` });
  await del.getByLabel(`Type ${restored} to confirm`).fill(restored);
  await del.getByLabel("Also delete its data").check();
  await del.getByRole("button", { name: `Delete ${restored}` }).click();
  await expect(page).toHaveURL(new RegExp(`/environments/${envId}$`));
  await expect(page.getByRole("region", { name: "Databases" }).getByRole("link", { name: restored, exact: true })).toHaveCount(0);
});
