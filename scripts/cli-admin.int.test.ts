// `npx levelrail admin create|grant|revoke|list` end to end: the real CLI (scripts/cli.ts through tsx)
// against a fresh database. The first operator is the installation's administrator; grant and revoke
// change who else is, each audited under no organization; the last one is kept.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { and, eq, isNull } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFor } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { user } from "@levelrail/db/schema/auth";
import { installationAdmin } from "@levelrail/db/schema/operator";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";

const root = join(import.meta.dirname, "..");
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
const masterKey = randomBytes(32).toString("base64");

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "cli_admin");
  ({ db, sql } = createDb(database.url));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

function cli(args: string[], input?: string) {
  const r = spawnSync(join(root, "node_modules", ".bin", "tsx"), [join(root, "scripts", "cli.ts"), ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: database.url, LEVELRAIL_DATA_DIR: "/nonexistent", LEVELRAIL_MASTER_KEY: masterKey },
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const admins = async () => (await db.select({ email: user.email }).from(installationAdmin).innerJoin(user, eq(user.id, installationAdmin.userId))).map((r) => r.email).sort();
const actorOf = async (email: string) => {
  const [u] = await db.select().from(user).where(eq(user.email, email));
  return actorFor(db, u!.id, u!.email);
};

describe("levelrail admin", () => {
  it("the first operator is the installation administrator; a later one is not until granted; revoke takes it back, never from the last", async () => {
    const first = cli(["admin", "create", "--email", "first@cli-admin.test", "--password-stdin"], "correct horse battery\n");
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("and installation administrator");
    const second = cli(["admin", "create", "--email", "second@cli-admin.test", "--password-stdin"], "correct horse battery\n");
    expect(second.code, second.err).toBe(0);
    expect(second.out).not.toContain("installation administrator");
    expect(await admins()).toEqual(["first@cli-admin.test"]);
    expect((await actorOf("first@cli-admin.test")).installationAdmin).toBe(true);
    expect((await actorOf("second@cli-admin.test")).installationAdmin).toBe(false);

    const grant = cli(["admin", "grant", "--email", "Second@cli-admin.test"]);
    expect(grant.code, grant.err).toBe(0);
    expect(grant.out.trim()).toBe("second@cli-admin.test is now an installation administrator");
    expect((await actorOf("second@cli-admin.test")).installationAdmin).toBe(true);
    expect(cli(["admin", "grant", "--email", "second@cli-admin.test"]).out).toContain("already");

    const listed = cli(["admin", "list"]);
    expect(listed.code, listed.err).toBe(0);
    expect(listed.out).toMatch(/first@cli-admin\.test .*granted by the first operator\nsecond@cli-admin\.test .*granted by cli/);

    const revoke = cli(["admin", "revoke", "--email", "first@cli-admin.test"]);
    expect(revoke.code, revoke.err).toBe(0);
    expect(await admins()).toEqual(["second@cli-admin.test"]);
    const last = cli(["admin", "revoke", "--email", "second@cli-admin.test"]);
    expect([last.code, last.err.trim()]).toEqual([1, "levelrail: second@cli-admin.test is the last installation administrator: grant another first (levelrail admin grant --email E)"]);
    expect(await admins()).toEqual(["second@cli-admin.test"]);

    const audited = await db.select({ action: auditEntry.action, target: auditEntry.targetName, actor: auditEntry.actorName }).from(auditEntry).where(and(isNull(auditEntry.orgId), eq(auditEntry.targetType, "user"))).orderBy(auditEntry.at);
    expect(audited).toEqual([
      { action: "installation-admin.grant", target: "second@cli-admin.test", actor: "cli" },
      { action: "installation-admin.revoke", target: "first@cli-admin.test", actor: "cli" },
    ]);
  });

  it("an unknown email or a missing flag: one line, exit 1, nothing written", async () => {
    const before = await admins();
    const unknown = cli(["admin", "grant", "--email", "nobody@cli-admin.test"]);
    expect([unknown.code, unknown.err.trim()]).toEqual([1, "levelrail: no operator with email nobody@cli-admin.test"]);
    const missing = cli(["admin", "grant"]);
    expect([missing.code, missing.err.trim()]).toEqual([1, "levelrail: --email is required (usage: npx levelrail --help)"]);
    expect(await admins()).toEqual(before);
  });
});
