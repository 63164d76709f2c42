import { randomBytes } from "node:crypto";
import type { Locator, Page, Response } from "@playwright/test";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { putTierEnv } from "@levelrail/services/env/vars";
import { createService } from "@levelrail/services/service/write";
import { E2E_IMAGES, IMAGE_HEALTH_PATH, IMAGE_PORT } from "../fixtures/images";
import { type Operator, uniqueName } from "../fixtures/stack";
import { expect, test } from "../fixtures/test";
import { type ServiceRef, hydrated, openService, rowOf, serviceApiPath, servicePage, showTab } from "../fixtures/ui";

/** What the effective environment shows instead of a write-only value. */
const MASK = "••••••";

/** A service seeded through the service layer (these tests need it to exist, not to run). */
async function seedService(op: Operator): Promise<ServiceRef> {
  const app = uniqueName("env");
  const name = uniqueName("api");
  await createApp({ ctx: op.ctx, envId: op.ctx.envId, input: { name: app } });
  await createService({
    ctx: op.ctx,
    envId: op.ctx.envId,
    input: { name, app, image: E2E_IMAGES.v1.tag, port: IMAGE_PORT, healthPath: IMAGE_HEALTH_PATH },
  });
  return { environmentId: op.ctx.envId, name };
}

/** Appends an empty row to an env editor with "Add variable"; returns it. */
async function addRow(editor: Locator): Promise<Locator> {
  const rows = editor.getByRole("listitem");
  const before = await rows.count();
  await editor.getByRole("button", { name: "Add variable" }).click();
  await expect(rows).toHaveCount(before + 1);
  return rows.last();
}

async function addVariable(editor: Locator, key: string, value: string) {
  const row = await addRow(editor);
  await row.getByLabel("Key", { exact: true }).fill(key);
  await row.getByLabel(`Value of ${key}`, { exact: true }).fill(value);
}

async function saveEnv(editor: Locator) {
  await editor.getByRole("button", { name: "Save env" }).click();
  await expect(editor.getByRole("status")).toHaveText("Saved");
}

/** A row of the effective environment: key, value, source, overrides. */
const effectiveRow = (page: Page, key: string) => rowOf(page.getByRole("table", { name: "Effective environment" }), key).getByRole("cell");

test("each env tier is edited and the effective environment names the source of every key", async ({ signedIn: page, operator }) => {
  const service = await seedService(operator);

  await page.goto("/settings/env");
  const org = page.getByRole("region", { name: "Organization env" });
  await hydrated(org.getByRole("button", { name: "Add variable" }));

  // Keys are checked as they are typed.
  const row = await addRow(org);
  await row.getByLabel("Key", { exact: true }).fill("9LIVES");
  await expect(row.getByRole("alert")).toHaveText(/^Key: must start with a letter or '_'/);
  await expect(row.getByLabel("Key", { exact: true })).toHaveAttribute("aria-invalid", "true");
  await row.getByLabel("Key", { exact: true }).fill("TIER");
  await expect(row.getByRole("alert")).toHaveCount(0);
  await row.getByLabel("Value of TIER", { exact: true }).fill("from-org");
  await addVariable(org, "ORG_ONLY", "o");
  await saveEnv(org);

  // The project's set comes from pasted .env text, on Settings › Env tiers.
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Env tiers" }).click();
  const project = page.getByRole("region", { name: "Project env" });
  await hydrated(project.getByLabel("Paste .env"));
  await project.getByLabel("Paste .env").fill('# project settings\nTIER=from-project\nexport PROJECT_ONLY="p"\n');
  await project.getByRole("button", { name: "Add from .env" }).click();
  await expect(project.getByLabel("Value of PROJECT_ONLY", { exact: true })).toHaveValue("p");
  await saveEnv(project);

  const environment = page.getByRole("region", { name: "Environment env" });
  await addVariable(environment, "TIER", "from-environment");
  await addVariable(environment, "ENV_ONLY", "e");
  await saveEnv(environment);

  await openService(page, service, "environment");
  await expect(effectiveRow(page, "ORG_ONLY")).toHaveText(["ORG_ONLY", "o", "organization", "—"]);
  await expect(effectiveRow(page, "PROJECT_ONLY")).toHaveText(["PROJECT_ONLY", "p", "project", "—"]);
  await expect(effectiveRow(page, "ENV_ONLY")).toHaveText(["ENV_ONLY", "e", "environment", "—"]);
  await expect(effectiveRow(page, "TIER")).toHaveText(["TIER", "from-environment", "environment", "overrides: organization, project"]);

  // The service's own env overrides every tier; the table follows the save without a reload.
  const own = page.getByRole("region", { name: "Service env" });
  await addVariable(own, "TIER", "from-service");
  await saveEnv(own);
  await expect(effectiveRow(page, "TIER")).toHaveText([
    "TIER",
    "from-service",
    "service",
    "overrides: organization, project, environment",
  ]);

  // Removing the environment's TIER on Settings › Env tiers shows through on the service page too.
  await page.goto("/settings/env-tiers");
  const environmentAgain = page.getByRole("region", { name: "Environment env" });
  await hydrated(environmentAgain.getByRole("button", { name: "Remove TIER" }));
  await environmentAgain.getByRole("button", { name: "Remove TIER" }).click();
  await saveEnv(environmentAgain);
  await openService(page, service, "environment");
  await expect(effectiveRow(page, "TIER")).toHaveText(["TIER", "from-service", "service", "overrides: organization, project"]);
  await expect(effectiveRow(page, "ENV_ONLY")).toHaveText(["ENV_ONLY", "e", "environment", "—"]);
});

test("a secret is set through a password field and its value is never shown or sent back", async ({
  signedIn: page,
  operator,
  bearer,
}) => {
  const service = await seedService(operator);
  const plaintext = `e2e-secret-${randomBytes(12).toString("hex")}`;
  // Every answer the browser gets from the product, from here on.
  const bodies: { url: string; body: string }[] = [];
  const pending: Promise<void>[] = [];
  const capture = (res: Response) => {
    pending.push(
      res.body().then(
        (b) => void bodies.push({ url: res.url(), body: b.toString("utf8") }),
        () => undefined, // a redirect or an aborted request has no body
      ),
    );
  };
  page.on("response", capture);

  await openService(page, service, "environment");
  const secrets = page.getByRole("region", { name: "Secrets" });
  const value = secrets.getByLabel("Value", { exact: true });
  await expect(value).toHaveAttribute("type", "password");
  await secrets.getByLabel("Key", { exact: true }).fill("API_TOKEN");
  await value.fill(plaintext);
  await secrets.getByRole("button", { name: "Save secret" }).click();
  await expect(secrets.getByRole("status")).toHaveText("API_TOKEN set");
  await expect(value).toHaveValue("");
  await expect(rowOf(secrets.getByRole("table"), "API_TOKEN")).toContainText("set, updated");
  await expect(effectiveRow(page, "API_TOKEN")).toHaveText(["API_TOKEN", MASK, "secret", "—"]);
  expect(await page.content()).not.toContain(plaintext);

  // A fresh render (server-prefetched data) does not carry it either.
  await page.reload();
  await expect(effectiveRow(page, "API_TOKEN")).toHaveText(["API_TOKEN", MASK, "secret", "—"]);
  expect(await page.content()).not.toContain(plaintext);

  page.off("response", capture);
  await Promise.all(pending);
  const ours = bodies.filter((b) => b.url.startsWith(new URL(page.url()).origin));
  // The capture saw the save, the live refresh of the effective environment and the re-rendered document.
  for (const path of [serviceApiPath(service, "/secrets/API_TOKEN"), serviceApiPath(service, "/env"), servicePage(service)]) {
    expect(ours.some((b) => new URL(b.url).pathname === path), `a response of ${path}`).toBe(true);
  }
  expect(ours.filter((b) => b.body.includes(plaintext)).map((b) => b.url)).toEqual([]);

  // Nor does the API.
  for (const path of ["", "/env", "/secrets", "/drift", "/status"]) {
    const res = await bearer.get(serviceApiPath(service, path));
    expect(res.status(), path).toBe(200);
    expect(await res.text(), path).not.toContain(plaintext);
  }
  expect(await (await bearer.get(serviceApiPath(service, "/env"))).json()).toContainEqual({
    key: "API_TOKEN",
    source: "secret",
    value: null,
    overrides: [],
  });
});

test("attaching storage warns about keys a tier already defines, and so does adding one later", async ({
  signedIn: page,
  operator,
  bearer,
}) => {
  const service = await seedService(operator);
  const secretKey = `e2e-s3-secret-${randomBytes(12).toString("hex")}`;
  const target = await createBackupTarget({
    ctx: operator.ctx,
    input: {
      name: uniqueName("backups"),
      endpoint: "https://s3.example.test",
      bucket: "e2e-bucket",
      region: "eu-e2e-1",
      accessKey: "AKIAE2E",
      secretKey,
    },
  });
  await putTierEnv({ ctx: operator.ctx, tier: "environment", id: operator.environmentId, input: { vars: { S3_BUCKET: "tier-bucket" } } });

  await openService(page, service, "environment");
  await expect(effectiveRow(page, "S3_BUCKET")).toHaveText(["S3_BUCKET", "tier-bucket", "environment", "—"]);
  // Attachments are on Settings; what they inject shows on Environment.
  await showTab(page, "settings");
  const attachments = page.getByRole("region", { name: "Attachments" });
  const storage = attachments.getByLabel("Storage", { exact: true });
  await storage.selectOption({ label: target.name });
  await attachments.getByRole("button", { name: "Save storage" }).click();
  const warning = attachments.getByRole("alert");
  await expect(warning).toContainText("S3_BUCKET (environment) is already defined for this service");

  // Cancel attaches nothing.
  await warning.getByRole("button", { name: "Cancel" }).click();
  await expect(warning).toHaveCount(0);
  expect(await (await bearer.get(serviceApiPath(service))).json()).toMatchObject({ storageTargetId: null });

  await attachments.getByRole("button", { name: "Save storage" }).click();
  await warning.getByRole("button", { name: "Attach anyway" }).click();
  await expect.poll(async () => ((await (await bearer.get(serviceApiPath(service))).json()) as { storageTargetId: string | null }).storageTargetId).toBe(target.id);
  await showTab(page, "environment");
  // Every value a storage attachment injects is write-only in this view, not just the keys.
  await expect(effectiveRow(page, "S3_BUCKET")).toHaveText(["S3_BUCKET", "e2e-bucket", "storage", "overrides: environment"]);
  await expect(effectiveRow(page, "S3_SECRET_KEY")).toHaveText(["S3_SECRET_KEY", MASK, "storage", "—"]);
  expect(await (await bearer.get(serviceApiPath(service))).json()).toMatchObject({ storageTargetId: target.id });

  // With storage attached, adding one of its keys to the service's own env warns before saving.
  const own = page.getByRole("region", { name: "Service env" });
  await addVariable(own, "S3_REGION", "mine");
  await own.getByRole("button", { name: "Save env" }).click();
  await expect(own.getByRole("alert")).toContainText("S3_REGION is set by the attached storage target");
  await own.getByRole("button", { name: "Save anyway" }).click();
  await expect(own.getByRole("status")).toHaveText("Saved");
  await expect(effectiveRow(page, "S3_REGION")).toHaveText(["S3_REGION", "eu-e2e-1", "storage", "overrides: service"]);

  expect(await page.content()).not.toContain(secretKey);
});
