// The panel's database role against the real PostgreSQL, set up as the start scripts set it up
// (`ensurePanelRole` as the owner after the migrations): the audit log's append-only trigger holds
// against it (it can neither drop nor disable the trigger, nor delete, change or truncate an entry),
// while the panel's verbs and the retention job work as that role.
import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { runMigrations } from "@levelrail/db/migrate";
import { ensurePanelRole } from "@levelrail/db/panel-role";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { recordAudit, workerSource } from "./record";
import { pruneAudit } from "./retention";

let database: Awaited<ReturnType<typeof freshDatabase>>;
const role = `lrtest_panel_${randomBytes(4).toString("hex")}`;
const password = randomBytes(18).toString("base64url");
let panelUrl: string;
let owner: Sql;
let panel: Sql;
let panelDb: { db: Db; sql: Sql };

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "panel_role");
  panelUrl = await ensurePanelRole(database.url, { role, password });
  owner = postgres(database.url, { max: 1, onnotice: () => {} });
  panel = postgres(panelUrl, { max: 1, onnotice: () => {} });
  panelDb = createDb(panelUrl, { max: 2 });
}, 120_000);

afterAll(async () => {
  await panel?.end({ timeout: 5 });
  await panelDb?.sql.end({ timeout: 5 });
  await owner?.end({ timeout: 5 });
  await database?.drop();
  // Roles are the cluster's: the test's goes with its database.
  const admin = postgres(requireDatabaseUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP ROLE IF EXISTS ${role}`);
  await admin.end();
});

/** The SQLSTATE a statement fails with, or null when it succeeded. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code?: string }) => e.code ?? "no code",
  );

const entry = (at: string) => ({ org_id: null, at, actor_type: "cli", actor_name: "cli", action: "test.entry", target_type: "test" });

describe("the panel's database role", () => {
  it("is not the owner: the owner could drop the trigger (what the panel's own role could before), the panel's role cannot", async () => {
    expect((await panel`select current_user as u`)[0]!.u).toBe(role);
    // As the owner, in a transaction rolled back: the hole a panel running as the owner had.
    const dropped = await owner
      .begin(async (tx) => {
        await tx`DROP TRIGGER audit_entry_append_only ON audit_entry`;
        throw new Error("rolled back");
      })
      .catch((e: Error) => e.message);
    expect(dropped).toBe("rolled back");
    for (const statement of [
      "DROP TRIGGER audit_entry_append_only ON audit_entry",
      "DROP TRIGGER audit_entry_no_truncate ON audit_entry",
      "ALTER TABLE audit_entry DISABLE TRIGGER ALL",
      "ALTER TABLE audit_entry DISABLE TRIGGER audit_entry_append_only",
      "DROP FUNCTION audit_entry_append_only() CASCADE",
      "CREATE OR REPLACE FUNCTION audit_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN OLD; END; $$",
      "DROP TABLE audit_entry",
      "ALTER TABLE audit_entry OWNER TO CURRENT_USER",
    ]) {
      expect(await failure(panel.unsafe(statement)), statement).toBe("42501");
    }
    expect((await owner`select count(*)::int as n from pg_trigger where tgrelid = 'audit_entry'::regclass and not tgisinternal and tgenabled <> 'D'`)[0]!.n).toBe(2);
  });

  it("reads and appends audit entries, and can neither delete, change nor truncate one, even inside the retention door", async () => {
    await owner`insert into audit_entry ${owner(entry("2020-01-01T00:00:00Z"))}`;
    await panel`insert into audit_entry ${panel(entry(new Date().toISOString()))}`;
    expect((await panel`select count(*)::int as n from audit_entry`)[0]!.n).toBe(2);
    expect(await failure(panel`delete from audit_entry`)).toBe("42501");
    expect(await failure(panel`update audit_entry set actor_name = 'someone else'`)).toBe("42501");
    expect(await failure(panel`truncate audit_entry`)).toBe("42501");
    const throughTheDoor = await failure(
      panel.begin(async (tx) => {
        await tx`select set_config('levelrail.audit_retention', ${new Date(Date.now() + 86_400_000).toISOString()}, true)`;
        await tx`delete from audit_entry`;
      }),
    );
    expect(throughTheDoor).toBe("42501");
    expect((await owner`select count(*)::int as n from audit_entry`)[0]!.n).toBe(2);
  });

  it("runs the panel's verbs and the retention job, which deletes only entries older than the retention", async () => {
    const seeded = await seedOrg(panelDb.db, "panel-role");
    await createApp({ ctx: seeded, envId: seeded.envId, input: { name: "shop" } });
    await recordAudit(panelDb.db, workerSource("test"), { orgId: seeded.orgId, action: "test.more", target: { type: "test" } });
    // The function that took its cutoff from its caller is gone (migration 0032).
    expect(await failure(panel`select audit_entry_prune(now())`)).toBe("42883");
    expect(await pruneAudit(panelDb.db)).toBe(1);
    expect((await owner`select count(*)::int as n from audit_entry where at < '2021-01-01'`)[0]!.n).toBe(0);
    expect((await owner`select count(*)::int as n from audit_entry`)[0]!.n).toBeGreaterThanOrEqual(3);
  });

  it("is set up again safely (every start does it after the migrations), keeping what it may not do", async () => {
    expect(await ensurePanelRole(database.url, { role, password })).toBe(panelUrl);
    expect(await failure(panel`delete from audit_entry`)).toBe("42501");
    await expect(ensurePanelRole(database.url, { role: "bad name", password })).rejects.toThrow(/letters, digits and _/);
  });
});

describe("the audit retention the panel's role cannot shorten (issue 42, finding 14 follow-up)", () => {
  it("a prune with a cutoff one day back, as the panel's role, deletes nothing younger than the configured retention", async () => {
    // The operator configured 30 days: the migrate step (as the owner) writes it to audit_policy.
    await runMigrations(database.url, { auditRetentionDays: 30 });
    const days = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    await owner`insert into audit_entry ${owner([entry(days(2)), entry(days(29)), entry(days(400))].map((e) => ({ ...e, action: "test.retention" })))}`;
    const left = async () => (await owner<{ n: number }[]>`select count(*)::int as n from audit_entry where action = 'test.retention'`)[0]!.n;
    // A cutoff of the panel's choosing, a day back: no such function any more, nothing deleted.
    expect(await failure(panel`select audit_entry_prune(now() - interval '1 day' - interval '1 minute')`)).toBe("42883");
    expect(await failure(panel`select audit_entry_prune('infinity'::timestamptz)`)).toBe("42883");
    expect(await left()).toBe(3);
    // The retention job: only what is older than the configured 30 days.
    expect(await pruneAudit(panelDb.db)).toBe(1);
    expect(await left()).toBe(2);
    await runMigrations(database.url, { auditRetentionDays: 365 });
    expect((await owner`select retention_days from audit_policy`)[0]!.retention_days).toBe(365);
    await expect(runMigrations(database.url, { auditRetentionDays: 0 })).rejects.toThrow(/from 1 to 36500/);
  });

  it("cannot change, fill or empty the retention policy", async () => {
    for (const statement of [
      "select retention_days from audit_policy",
      "update audit_policy set retention_days = 1",
      "delete from audit_policy",
      "insert into audit_policy (id, retention_days) values (true, 1) on conflict (id) do update set retention_days = 1",
      "truncate audit_policy",
      "alter table audit_policy drop constraint audit_policy_pkey",
    ]) {
      expect(await failure(panel.unsafe(statement)), statement).toBe("42501");
    }
    // Set up again (every start does it), the role still gets nothing on it.
    await ensurePanelRole(database.url, { role, password });
    expect(await failure(panel`update audit_policy set retention_days = 1`)).toBe("42501");
    expect((await owner`select retention_days from audit_policy`)[0]!.retention_days).toBe(365);
  });
});
