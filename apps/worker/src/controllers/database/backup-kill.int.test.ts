// A worker process killed (`kill -9`) while a scheduled backup runs (issue 13): the run shows
// `interrupted`, nothing it stored is left as a good backup, and the next scheduled run happens
// under the worker that takes over.
import { existsSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createDb } from "@levelrail/db/client";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { listBackups } from "@levelrail/services/database/view";
import { createDatabase, patchDatabase } from "@levelrail/services/database/write";
import { instanceFilter } from "@levelrail/spec/naming";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { type S3Server, startS3Server } from "@levelrail/testkit/s3";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { workerInstallation } from "../../../test/processes";

let inst: Awaited<ReturnType<typeof workerInstallation>>;
let s3: S3Server;
let closeDb: () => Promise<void>;
const BUCKET = "kill-backups";

beforeAll(async () => {
  inst = await workerInstallation("dbkill");
  await ensurePostgresImage(inst.runtime.docker);
  s3 = await startS3Server({ buckets: [BUCKET] });
}, 120_000);

afterAll(async () => {
  await closeDb?.();
  await inst?.teardown();
  for (const v of (await inst?.runtime.listVolumes(instanceFilter(inst.shortName))) ?? []) await inst.runtime.removeVolume(v.name).catch(() => {});
  await s3?.stop();
}, 120_000);

it("marks a backup cut short by a killed worker interrupted, leaves no object of it, and runs the next scheduled one", async () => {
  const { db, sql } = createDb(inst.databaseUrl);
  closeDb = () => sql.end({ timeout: 5 });
  const ctx = { ...(await seedOrg(db, "dbkill", inst.kit)), allowPrivateTargets: true }; // its S3 server is on loopback
  const target = await createBackupTarget({ ctx, input: { name: "s3", endpoint: s3.endpoint, bucket: BUCKET, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey } });
  await createDatabase({ ctx, envId: ctx.envId, input: { name: "orders", version: "15", image: POSTGRES_TEST_IMAGE } });
  const a = await inst.spawn("a");
  await waitFor("orders to run", async () => (await db.execute<{ phase: string }>(`select phase from database_status`)).some((r) => r.phase === "running") || undefined, { timeoutMs: 120_000 });
  await patchDatabase({ ctx, envId: ctx.envId, name: "orders", input: { backupSchedule: { cron: "* * * * *", targetId: target.id, keep: 5 } } });

  // The first scheduled run: killed while it verifies (its object is stored by then).
  const first = await waitFor("the scheduled run to verify", async () => (await listBackups({ ctx, envId: ctx.envId, name: "orders" })).find((b) => b.step === "verifying"), {
    timeoutMs: 120_000,
    intervalMs: 50,
  });
  expect(first.trigger).toBe("schedule");
  a.kill9();
  await a.exited;

  await inst.spawn("b");
  const cut = await waitFor("the cut-short run to show interrupted", async () => (await listBackups({ ctx, envId: ctx.envId, name: "orders" })).find((b) => b.id === first.id && b.status === "interrupted"), {
    timeoutMs: 90_000,
  });
  expect(cut.message).toMatch(/interrupted/);
  expect(cut.verification).toBeNull();
  expect(existsSync(s3.objectPath(BUCKET, first.objectKey!))).toBe(false);

  // The next due time runs under the new worker, verified.
  const next = await waitFor("the next scheduled run", async () => (await listBackups({ ctx, envId: ctx.envId, name: "orders" })).find((b) => b.trigger === "schedule" && b.status === "verified" && !b.step), {
    timeoutMs: 150_000,
    intervalMs: 500,
  });
  expect(new Date(next.scheduledFor!).getTime()).toBeGreaterThan(new Date(first.scheduledFor!).getTime());
  expect((await listBackups({ ctx, envId: ctx.envId, name: "orders" })).filter((b) => b.status === "verified").length).toBe(1);
}, 420_000);
