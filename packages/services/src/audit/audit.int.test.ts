// The audit log against the real PostgreSQL: one entry per change, in the change's transaction (a
// refused request writes none), never a secret's value, append-only (the trigger), the retention job,
// and the filtered, cursor-paged query.
import { eq, sql as dsql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp, deleteApp } from "../app/app";
import { putSecret, deleteSecret } from "../env/secrets";
import { putTierEnv } from "../env/vars";
import { createService, deleteService, patchService } from "../service/write";
import { deployService } from "../release/deploy";
import { createProject } from "../project/create";
import { exportAudit, listAudit } from "./list";
import { pruneAudit } from "./retention";
import { recordAudit, workerSource } from "./record";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
type Org = Awaited<ReturnType<typeof seedOrg>>;
let o: Org;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "audit");
  ({ db, sql } = createDb(database.url, { max: 6 }));
  o = await seedOrg(db, "audit");
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

const entriesOf = async (orgId: string) => db.select().from(auditEntry).where(eq(auditEntry.orgId, orgId)).orderBy(auditEntry.id);
const refusal = (p: Promise<unknown>) => p.then(() => null, (err: { code?: string }) => err);

describe("one entry per change", () => {
  it("records each write verb once, with the actor, target and field names", async () => {
    const before = (await entriesOf(o.orgId)).length;
    await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image: "registry.example.com/web:1", port: 80 } });
    await patchService({ ctx: o, envId: o.envId, name: "web", input: { port: 8080, image: "registry.example.com/web:2" } });
    await deployService({ ctx: o, envId: o.envId, name: "web", input: {} });
    await putTierEnv({ ctx: o, tier: "environment", id: o.envId, input: { vars: { LOG_LEVEL: "debug" } } });
    const rows = (await entriesOf(o.orgId)).slice(before);
    expect(rows.map((r) => r.action)).toEqual(["app.create", "service.create", "service.update", "service.deploy", "env.set"]);
    expect(rows[2]).toMatchObject({ actorType: "user", actorId: o.actor.userId, actorName: o.actor.email, targetType: "service", targetName: "web", fields: ["image", "port"] });
    expect(rows[4]!.fields).toEqual(["LOG_LEVEL"]);
  });

  it("a refused request writes no entry", async () => {
    const before = (await entriesOf(o.orgId)).length;
    expect((await refusal(createApp({ ctx: o, envId: o.envId, input: { name: "shop" } })))?.code).toBe("conflict");
    expect((await refusal(createApp({ ctx: o, envId: o.envId, input: { name: "Bad Name" } })))?.code).toBe("invalid_input");
    expect((await refusal(deleteApp({ ctx: o, envId: o.envId, name: "nope" })))?.code).toBe("not_found");
    // A failure inside the transaction (an app with services cannot go) rolls its entry back too.
    expect((await refusal(deleteApp({ ctx: o, envId: o.envId, name: "shop" })))?.code).toBe("conflict");
    expect((await entriesOf(o.orgId)).length).toBe(before);
  });

  it("names a secret's key, never its value", async () => {
    const value = "s3cret-value-that-must-not-leak";
    await putSecret({ ctx: o, envId: o.envId, name: "web", key: "API_KEY", input: { value } });
    await deleteSecret({ ctx: o, envId: o.envId, name: "web", key: "API_KEY" });
    const rows = await entriesOf(o.orgId);
    expect(rows.slice(-2).map((r) => [r.action, r.fields])).toEqual([["secret.set", ["API_KEY"]], ["secret.delete", ["API_KEY"]]]);
    const dump = await sql`select audit_entry::text as t from audit_entry`;
    expect(dump.map((r) => String(r.t)).join("\n")).not.toContain(value);
  });

  it("names a token, the CLI or the worker, and the source address, when the entrypoint says so", async () => {
    const ctx = { ...o, audit: { actor: { type: "token" as const, id: "tok-1", name: "token ci (x@y)" }, ip: "203.0.113.9" } };
    await createProject({ ctx, input: { name: "via-token", orgId: o.orgId } });
    await db.transaction((tx) => recordAudit(tx, workerSource("host:1:r"), { orgId: o.orgId, action: "backup.create", target: { type: "database", name: "pg" } }));
    const rows = (await entriesOf(o.orgId)).slice(-2);
    expect(rows[0]).toMatchObject({ actorType: "token", actorId: "tok-1", sourceIp: "203.0.113.9", action: "project.create", targetName: "via-token" });
    expect(rows[1]).toMatchObject({ actorType: "worker", actorName: "worker", sourceIp: null });
  });

  it("a deleted service keeps its entries", async () => {
    await deleteService({ ctx: o, envId: o.envId, name: "web" });
    const rows = await entriesOf(o.orgId);
    expect(rows.filter((r) => r.targetName === "web").map((r) => r.action)).toContain("service.delete");
  });
});

describe("append-only", () => {
  it("refuses UPDATE, DELETE and TRUNCATE", async () => {
    const [row] = await entriesOf(o.orgId);
    await expect(sql`update audit_entry set action = 'x' where id = ${row!.id}`).rejects.toThrow(/append-only/);
    await expect(sql`delete from audit_entry where id = ${row!.id}`).rejects.toThrow(/append-only/);
    await expect(sql`truncate audit_entry`).rejects.toThrow(/append-only/);
    // The retention setting allows a DELETE of older entries only, never an UPDATE.
    await expect(
      sql.begin(async (tx) => {
        await tx`select set_config('levelrail.audit_retention', ${new Date(Date.now() + 86_400_000).toISOString()}, true)`;
        await tx`update audit_entry set action = 'x' where id = ${row!.id}`;
      }),
    ).rejects.toThrow(/append-only/);
    await expect(
      sql.begin(async (tx) => {
        await tx`select set_config('levelrail.audit_retention', '2000-01-01T00:00:00Z', true)`;
        await tx`delete from audit_entry where id = ${row!.id}`;
      }),
    ).rejects.toThrow(/append-only/);
    expect((await entriesOf(o.orgId))[0]!.action).toBe(row!.action);
  });

  it("the retention job deletes only entries older than its cutoff", async () => {
    const old = await seedOrg(db, "audit-old");
    await db.insert(auditEntry).values([
      { orgId: old.orgId, at: new Date("2020-01-01T00:00:00Z"), actorType: "cli", actorName: "cli", action: "quota.set", targetType: "organization" },
      { orgId: old.orgId, actorType: "cli", actorName: "cli", action: "quota.set", targetType: "organization" },
    ]);
    const n = await pruneAudit(db);
    expect(n).toBeGreaterThanOrEqual(1);
    expect((await entriesOf(old.orgId)).map((r) => r.at.getFullYear())).toEqual([new Date().getFullYear()]);
    // The setting did not outlive the job's transaction.
    const [s] = await db.execute<{ v: string | null }>(dsql`select current_setting('levelrail.audit_retention', true) as v`);
    expect(s?.v ?? "").toBe("");
  });
});

describe("the query", () => {
  it("pages newest first with a cursor, filters, and exports every match", async () => {
    const p = await seedOrg(db, "audit-page");
    for (let i = 0; i < 7; i++) await createApp({ ctx: p, envId: p.envId, input: { name: `a${i}` } });
    await createProject({ ctx: p, input: { name: "other" } });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const input: Record<string, string> = { limit: "3", action: "app.create", ...(cursor ? { cursor } : {}) };
      const page: Awaited<ReturnType<typeof listAudit>> = await listAudit({ ctx: p, orgId: p.orgId, input });
      seen.push(...page.entries.map((e) => e.target.name ?? ""));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(["a6", "a5", "a4", "a3", "a2", "a1", "a0"]);
    expect((await listAudit({ ctx: p, orgId: p.orgId, input: { target: "project:other" } })).entries.map((e) => e.action)).toEqual(["project.create"]);
    expect((await listAudit({ ctx: p, orgId: p.orgId, input: { actor: "token" } })).entries).toEqual([]);
    expect((await listAudit({ ctx: p, orgId: p.orgId, input: { actor: p.actor.userId, since: "2000-01-01T00:00:00Z" } })).entries.length).toBe(8);
    expect((await listAudit({ ctx: p, orgId: p.orgId, input: { until: "2000-01-01T00:00:00Z" } })).entries).toEqual([]);
    const all: string[] = [];
    for await (const e of exportAudit({ ctx: p, orgId: p.orgId, input: {} })) all.push(e.action);
    expect(all.length).toBe(8);
    // Another organization's log is a 404; a bad filter a 400 naming it.
    expect((await refusal(listAudit({ ctx: p, orgId: o.orgId, input: {} })))?.code).toBe("not_found");
    expect(await refusal(listAudit({ ctx: p, orgId: p.orgId, input: { cursor: "abc" } }))).toMatchObject({ code: "invalid_input", field: "cursor" });
  });
});
