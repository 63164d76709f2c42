// `npx levelrail quota show|set` end to end: the real CLI (scripts/cli.ts through tsx) against a
// fresh database, as the installation's administrator runs it on the host.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { orgQuota, organization } from "@levelrail/db/schema/orgs";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";

const root = join(import.meta.dirname, "..");
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let orgId: string;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "cli_quota");
  ({ db, sql } = createDb(database.url));
  const [org] = await db.insert(organization).values({ name: "acme" }).returning();
  orgId = org!.id;
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "cli.ts"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LEVELRAIL_DATA_DIR: "/nonexistent", ...env },
    encoding: "utf8",
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("levelrail quota", () => {
  it("shows the installation defaults (LEVELRAIL_QUOTA_*), sets an organization's own, and resets them", async () => {
    const shown = cli(["quota", "show", "--org", orgId], { LEVELRAIL_QUOTA_APPS: "7" });
    expect(shown.code, shown.err).toBe(0);
    expect(shown.out).toContain(`organization acme (${orgId})`);
    expect(shown.out).toMatch(/apps\s+0 of 7\s+installation default/);

    const set = cli(["quota", "set", "--org", orgId, "--apps", "3", "--domains", "0"]);
    expect(set.code, set.err).toBe(0);
    expect(set.out).toMatch(/apps\s+0 of 3\s+set for this organization/);
    expect(set.out).toMatch(/services\s+0 of 200\s+installation default/);
    expect(await db.select({ apps: orgQuota.apps, domains: orgQuota.domains, services: orgQuota.services }).from(orgQuota).where(eq(orgQuota.orgId, orgId))).toEqual([
      { apps: 3, domains: 0, services: null },
    ]);

    const reset = cli(["quota", "set", "--org", orgId, "--reset"]);
    expect(reset.code, reset.err).toBe(0);
    expect(await db.select().from(orgQuota).where(eq(orgQuota.orgId, orgId))).toEqual([]);
  });

  // (An unknown organization, and limits out of range, are refused by the verb: quota.int.test.ts.)
  it("refuses a value that is not a whole number with one line and exit code 1, writing nothing", async () => {
    const bad = cli(["quota", "set", "--org", orgId, "--services", "many"]);
    expect([bad.code, bad.err.trim()]).toEqual([1, "levelrail: --services many: must be a whole number or `default` (usage: npx levelrail --help)"]);
    expect(await db.select().from(orgQuota).where(eq(orgQuota.orgId, orgId))).toEqual([]);
  });
});
