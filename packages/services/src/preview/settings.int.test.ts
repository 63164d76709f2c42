import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { auditEntry } from "@levelrail/db/schema/audit";
import { preview, previewSettings } from "@levelrail/db/schema/git";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedMember, seedOrg } from "@levelrail/testkit/seed";
import { createProject } from "../project/create";
import { createEnvironment } from "../project/environment";
import { getProjectPreviews, putPreviewSettings } from "./settings";

/** A project's preview settings: who may set them, the base environment and the domain they may name; nothing written when refused. */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
const ctxOf = (o: Awaited<ReturnType<typeof seedOrg>>) => ({ ...o, baseDomains: ["apps.example.com"] });
const refusal = async (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as { code: string; field?: string; message: string });

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "previewsettings");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "pva");
  b = await seedOrg(db, "pvb");
});

afterAll(async () => {
  await sql.end();
  await database.drop();
});

describe("preview settings", () => {
  it("are set under a base domain, read back, and audited", async () => {
    expect(await getProjectPreviews({ ctx: ctxOf(a), projectId: a.projectId })).toEqual({ settings: null, previews: [] });
    const got = await putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { baseEnvironmentId: a.envId, domain: "pr.apps.example.com", max: 3, ttlHours: 48 } });
    expect(got.settings).toMatchObject({ baseEnvironmentId: a.envId, domain: "pr.apps.example.com", max: 3, ttlHours: 48 });
    const entries = await db.select().from(auditEntry).where(and(eq(auditEntry.orgId, a.orgId), eq(auditEntry.action, "preview.settings")));
    expect(entries.map((e) => e.fields)).toEqual([["baseEnvironmentId", "domain", "max", "ttlHours"]]);
  });

  it("refuse a domain outside the base domains, another project's environment, weaker roles and other organizations; writing nothing", async () => {
    const before = await db.select().from(previewSettings);
    const ok = { baseEnvironmentId: a.envId, domain: "pr.apps.example.com", max: 3, ttlHours: 48 };
    expect(await refusal(putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { ...ok, domain: "evil.example.org" } }))).toMatchObject({ code: "invalid_input", field: "domain" });
    expect(await refusal(putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { ...ok, domain: "127.0.0.1" } }))).toMatchObject({ code: "invalid_input", field: "domain" });
    expect(await refusal(putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { ...ok, max: -1 } }))).toMatchObject({ code: "invalid_input", field: "max" });
    const other = await createProject({ ctx: a, input: { name: "other", orgId: a.orgId } });
    const otherEnv = await createEnvironment({ ctx: a, projectId: other.id, input: { name: "staging" } });
    expect(await refusal(putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { ...ok, baseEnvironmentId: otherEnv!.id } }))).toMatchObject({ code: "invalid_input", field: "baseEnvironmentId" });
    expect(await refusal(putPreviewSettings({ ctx: ctxOf(a), projectId: a.projectId, input: { ...ok, baseEnvironmentId: b.envId } }))).toMatchObject({ code: "invalid_input", field: "baseEnvironmentId" });
    const developer = await seedMember(db, a, "pvdev", "developer");
    expect(await refusal(putPreviewSettings({ ctx: { ...developer, baseDomains: ["apps.example.com"] }, projectId: a.projectId, input: ok }))).toMatchObject({ code: "forbidden", message: expect.stringContaining("admin") });
    expect((await getProjectPreviews({ ctx: developer, projectId: a.projectId })).settings?.domain).toBe("pr.apps.example.com");
    const theirs = await refusal(putPreviewSettings({ ctx: ctxOf(b), projectId: a.projectId, input: ok }));
    const nothing = await refusal(putPreviewSettings({ ctx: ctxOf(b), projectId: "00000000-0000-4000-8000-000000000000", input: ok }));
    expect(theirs).toMatchObject({ code: "not_found" });
    expect(theirs).toEqual(nothing);
    expect(await refusal(getProjectPreviews({ ctx: b, projectId: a.projectId }))).toMatchObject({ code: "not_found" });
    expect(await db.select().from(previewSettings)).toEqual(before);
  });

  it("list every open, refused or waiting preview and the latest closed ones, at most 1000, however many closed rows pile up", async () => {
    const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 60_000);
    const closed = Array.from({ length: 1100 }, (_, i) => ({ orgId: a.orgId, projectId: a.projectId, repo: "github.com/acme/shop", number: 1 + i, headRef: "x", headCommit: "b".repeat(40), state: "closed" as const, updatedAt: at(1000 + i), closedAt: at(1000 + i) }));
    await db.insert(preview).values(closed);
    // Older than every closed one: still listed.
    await db.insert(preview).values([
      { orgId: a.orgId, projectId: a.projectId, repo: "github.com/acme/shop", number: 5000, headRef: "x", headCommit: "b".repeat(40), state: "open", fork: true, outsider: true, updatedAt: at(1) },
      { orgId: a.orgId, projectId: a.projectId, repo: "github.com/acme/shop", number: 5001, headRef: "x", headCommit: "b".repeat(40), state: "refused", updatedAt: at(2) },
    ]);
    const { previews } = await getProjectPreviews({ ctx: a, projectId: a.projectId });
    expect(previews).toHaveLength(1000);
    expect(previews.slice(0, 3).map((p) => p.number)).toEqual([1100, 1099, 1098]);
    expect(previews.slice(-2).map((p) => [p.number, p.state, p.approval])).toEqual([
      [5001, "refused", "not-needed"],
      [5000, "open", "awaiting"],
    ]);
    await db.delete(preview).where(eq(preview.projectId, a.projectId));
  });
});
