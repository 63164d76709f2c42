import { readFileSync, writeFileSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { requestBackup } from "@levelrail/services/database/backups";
import { getBackup, getDatabase } from "@levelrail/services/database/view";
import { createDatabase } from "@levelrail/services/database/write";
import { POSTGRES_TEST_IMAGE } from "@levelrail/testkit/postgres-image";
import { waitFor } from "@levelrail/testkit/wait";
import { seedService } from "../fixtures/services";
import { type Operator, uniqueName } from "../fixtures/stack";
import { type E2eS3, expect, test } from "../fixtures/test";
import { hydrated, openService, rowOf, showTab } from "../fixtures/ui";

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
  await page.goto("/settings/backup-targets");
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
  // A placement needs a swarm: on this one engine the API's 409 shows under the field, and nothing is made.
  const placement = form.getByLabel("Node placement (optional, a swarm only)");
  await placement.fill("disk=ssd");
  await form.getByRole("button", { name: "Create database" }).click();
  await expect(placement).toHaveAttribute("aria-invalid", "true");
  await expect(form.getByRole("alert")).toHaveText(/needs a Docker Swarm/);
  await placement.fill("");
  await form.getByRole("button", { name: "Create database" }).click();
  await expect(form.getByRole("status")).toContainText(`Created ${name}`);
  const databases = page.getByRole("region", { name: "Databases" });
  await expect(databases.getByTestId(`database-phase-${name}`)).toHaveText("running", { timeout: DATABASE_TIMEOUT });

  // The service's page: attach it under the default key; the effective env names the source and hides the value.
  await openService(page, service, "settings");
  const attachments = page.getByRole("region", { name: "Databases" });
  await attachments.getByLabel("Database", { exact: true }).selectOption(name);
  await expect(attachments.getByLabel("Env key")).toHaveValue("DATABASE_URL");
  await attachments.getByRole("button", { name: "Attach database" }).click();
  await expect(rowOf(attachments.getByRole("table"), "DATABASE_URL")).toContainText(name);
  await showTab(page, "environment");
  const effective = rowOf(page.getByRole("table", { name: "Effective environment" }), "DATABASE_URL").getByRole("cell");
  await expect(effective.nth(2)).toHaveText("database");
  await expect(effective.nth(1)).toHaveText("••••••");

  // The database's page: connection facts without a password, who attaches it, and a schedule whose cron is checked as typed.
  await openDatabase(page, envId, name);
  await expect(page.getByTestId("database-phase")).toHaveText("running");
  const connection = page.getByRole("region", { name: "Connection" });
  await expect(connection).toContainText("never shown");
  await expect(connection.getByTestId("database-placement")).toHaveText("the manager's engine");
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

/** A running database with one verified backup on the test S3 server, seeded through the service layer. */
async function seedBackedUp(op: Operator, s3: E2eS3): Promise<{ name: string; backupId: string; objectKey: string }> {
  const ctx = op.ctx;
  const target = await createBackupTarget({
    ctx,
    input: { name: uniqueName("s3"), endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey },
  });
  const name = uniqueName("orders");
  await createDatabase({ ctx, envId: ctx.envId, input: { name, version: "15", image: POSTGRES_TEST_IMAGE } });
  await waitFor(`database ${name} to run`, async () => ((await getDatabase({ ctx, envId: ctx.envId, name })).phase === "running" ? true : undefined), {
    timeoutMs: DATABASE_TIMEOUT,
    intervalMs: 500,
  });
  const { id } = await requestBackup({ ctx, envId: ctx.envId, name, input: { targetId: target.id } });
  const done = await waitFor(
    `the backup of ${name} to finish`,
    async () => {
      const b = await getBackup({ ctx, envId: ctx.envId, name, id });
      return b.status === "running" ? undefined : b;
    },
    { timeoutMs: DATABASE_TIMEOUT, intervalMs: 500 },
  );
  expect(done.status, done.message).toBe("verified");
  return { name, backupId: id, objectKey: done.objectKey! };
}

test("replace keeps the old volume until its name is typed; a corrupted dump verified again is unverified and restores only after “restore anyway”", async ({
  signedIn: page,
  operator,
  postgresImage: _postgresImage,
  s3,
}) => {
  const envId = operator.environmentId;
  const { name, objectKey } = await seedBackedUp(operator, s3);
  await openDatabase(page, envId, name);
  const backup = newestBackup(page);
  await expect(backup.getByTestId("backup-status")).toHaveText("verified");

  // Replace the data with the verified backup: the database's name must be typed first.
  await backup.getByRole("button", { name: "Restore…" }).click();
  const restore = page.getByRole("form", { name: /^Restore the backup of/ });
  await expect(restore.getByRole("alert")).toHaveCount(0);
  await restore.getByRole("radio", { name: /replacing its current data/ }).check();
  await restore.getByRole("button", { name: `Replace ${name}'s data` }).click();
  await expect(restore.getByRole("alert")).toHaveText(`type ${name} to replace its data`);
  await restore.getByLabel(`Type ${name} to confirm`).fill(name);
  await restore.getByRole("button", { name: `Replace ${name}'s data` }).click();
  await expect(restore.getByRole("status")).toContainText("fresh volume");
  await expect(page.getByRole("table", { name: "Restores" }).getByTestId("restore-status").first()).toHaveText("succeeded", { timeout: DATABASE_TIMEOUT });
  await expect(page.getByTestId("database-phase")).toHaveText("running", { timeout: DATABASE_TIMEOUT });

  // The volume it replaced is kept and listed; removing it takes its exact name.
  const kept = page.getByRole("list", { name: "Kept volumes" }).getByRole("listitem");
  await expect(kept).toHaveCount(1);
  const volume = (await kept.locator(".mono").first().textContent()) ?? "";
  expect(volume).toMatch(/-db-/);
  await kept.getByRole("button", { name: "Remove…" }).click();
  const removal = page.getByRole("form", { name: `Remove volume ${volume}` });
  await removal.getByLabel(`Type ${volume} to remove its data for good`).fill(volume.slice(0, -1));
  await removal.getByRole("button", { name: "Remove volume" }).click();
  await expect(removal.getByRole("alert")).toHaveText(`type ${volume} to remove it`);
  await removal.getByLabel(`Type ${volume} to remove its data for good`).fill(volume);
  await removal.getByRole("button", { name: "Remove volume" }).click();
  await expect(page.getByRole("list", { name: "Kept volumes" })).toHaveCount(0, { timeout: DATABASE_TIMEOUT });

  // Flip bytes of the stored dump on the S3 server's disk: "Verify again" finds it unverified, saying what went wrong.
  const file = s3.objectPath(s3.bucket, objectKey);
  const bytes = readFileSync(file);
  for (let i = bytes.length >> 1; i < (bytes.length >> 1) + 64 && i < bytes.length; i++) bytes[i] = bytes[i]! ^ 0xff;
  writeFileSync(file, bytes);
  await backup.getByRole("button", { name: "Verify again" }).click();
  await expect(backup.getByTestId("backup-status")).toHaveText("unverified", { timeout: DATABASE_TIMEOUT });
  await expect(backup.getByRole("cell").nth(5)).not.toHaveText(/^unverified$/);

  // Restoring it warns, and is sent (with acceptUnverified) only once "restore anyway" is ticked.
  await backup.getByRole("button", { name: "Restore…" }).click();
  const again = page.getByRole("form", { name: /^Restore the backup of/ });
  await expect(again.getByRole("alert").first()).toContainText("This backup is unverified");
  const copy = uniqueName("copy");
  await again.getByLabel("New database name").fill(copy);
  await again.getByRole("button", { name: "Restore into new database" }).click();
  await expect(again.getByText("tick “restore anyway” to restore it")).toBeVisible();
  await again.getByLabel("Restore anyway").check();
  await again.getByRole("button", { name: "Restore into new database" }).click();
  await expect(again.getByRole("status").getByRole("link", { name: copy })).toBeVisible();
});
