// Per-organization quotas (issue 12, item 5) against the real PostgreSQL: reaching one is a 409
// naming the quota and its value, nothing is written, and parallel creates cannot pass it together.
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { environment, orgQuota } from "@levelrail/db/schema/orgs";
import { app, service } from "@levelrail/db/schema/services";
import { httpStatus } from "@levelrail/spec/errors";
import { DEFAULT_QUOTAS } from "@levelrail/spec/quotas";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp, deleteApp } from "../app/app";
import { createEnvironment } from "../project/environment";
import { createService, patchService } from "../service/write";
import { getQuotas, setOrgQuotas, showOrgQuotas } from "./quota";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "quota");
  ({ db, sql } = createDb(database.url, { max: 12 }));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

type Org = Awaited<ReturnType<typeof seedOrg>>;

/** The error a promise rejects with, or null when it resolves. */
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (err: { code?: string; message?: string; field?: string }) => err,
  );

const appsOf = async (o: Org) => (await db.select({ n: count() }).from(app).where(eq(app.orgId, o.orgId)))[0]!.n;
const servicesOf = async (o: Org) => (await db.select({ n: count() }).from(service).where(eq(service.orgId, o.orgId)))[0]!.n;
const svc = (name: string, appName: string, domains: string[] = []) => ({ name, app: appName, image: "registry.example.com/x:1", port: 80, domains });

describe("an organization's own quota", () => {
  let o: Org;
  beforeAll(async () => {
    o = await seedOrg(db, "quota-own");
    await setOrgQuotas(db, o.orgId, { apps: 3, services: 2, domains: 3 }, undefined);
  });

  it("refuses the 4th app with apps quota 3: a 409 quota_exceeded naming apps (3), and no row written", async () => {
    for (const name of ["a1", "a2", "a3"]) await createApp({ ctx: o, envId: o.envId, input: { name } });
    const err = await refusal(createApp({ ctx: o, envId: o.envId, input: { name: "a4" } }));
    expect(err).toMatchObject({ code: "quota_exceeded" });
    expect(httpStatus("quota_exceeded")).toBe(409);
    expect(err?.message).toContain("organization quota reached: apps (3)");
    expect(err?.message).toContain("levelrail quota set");
    expect(err?.field).toBeUndefined();
    expect(await appsOf(o)).toBe(3);
    // Freeing one makes room again.
    await deleteApp({ ctx: o, envId: o.envId, name: "a3" });
    await createApp({ ctx: o, envId: o.envId, input: { name: "a4" } });
    expect(await appsOf(o)).toBe(3);
  });

  it("refuses the 3rd service with services quota 2, and writes nothing", async () => {
    await createService({ ctx: o, envId: o.envId, input: svc("s1", "a1", ["one.quota.test"]) });
    await createService({ ctx: o, envId: o.envId, input: svc("s2", "a1") });
    const err = await refusal(createService({ ctx: o, envId: o.envId, input: svc("s3", "a2") }));
    expect(err).toMatchObject({ code: "quota_exceeded" });
    expect(err?.message).toContain("services (2)");
    expect(await servicesOf(o)).toBe(2);
  });

  it("counts every service's domains after the change: a patch adding domains over the quota is refused, naming domains", async () => {
    // s1 has 1 of the 3; s2 asking for 3 makes 4.
    const err = await refusal(
      patchService({ ctx: o, envId: o.envId, name: "s2", input: { domains: ["a.quota.test", "b.quota.test", "c.quota.test"] } }),
    );
    expect(err).toMatchObject({ code: "quota_exceeded", field: "domains" });
    expect(err?.message).toContain("domains (3)");
    expect(err?.message).toContain("it has 1 and this would add 3");
    const [s2] = await db.select().from(service).where(and(eq(service.orgId, o.orgId), eq(service.name, "s2")));
    expect(s2!.domains).toEqual([]);
    // Up to the quota passes; replacing a service's domains by as many others passes at the quota.
    await patchService({ ctx: o, envId: o.envId, name: "s2", input: { domains: ["a.quota.test", "b.quota.test"] } });
    await patchService({ ctx: o, envId: o.envId, name: "s1", input: { domains: ["two.quota.test"] } });
    expect((await getQuotas({ ctx: o, orgId: o.orgId })).quotas.domains).toEqual({ limit: 3, used: 3, source: "organization" });
  });

  it("refuses a new service whose domains would pass the domains quota, even with room for the service", async () => {
    await setOrgQuotas(db, o.orgId, { services: 10 }, undefined);
    const err = await refusal(createService({ ctx: o, envId: o.envId, input: svc("s3", "a2", ["d.quota.test"]) }));
    expect(err).toMatchObject({ code: "quota_exceeded", field: "domains" });
    expect(await servicesOf(o)).toBe(2);
  });

  it("lets an organization over a lowered quota keep and shrink what it has, and refuses only additions", async () => {
    await setOrgQuotas(db, o.orgId, { domains: 1 }, undefined);
    await patchService({ ctx: o, envId: o.envId, name: "s2", input: { domains: ["a.quota.test"] } });
    await patchService({ ctx: o, envId: o.envId, name: "s2", input: { port: 81 } });
    expect(await refusal(patchService({ ctx: o, envId: o.envId, name: "s2", input: { domains: ["a.quota.test", "z.quota.test"] } }))).toMatchObject({
      code: "quota_exceeded",
    });
    await setOrgQuotas(db, o.orgId, { domains: 3, services: 2 }, undefined);
  });

  it("answers GET quotas to members with limit, use and source, and 404 to anyone else", async () => {
    const view = await getQuotas({ ctx: o, orgId: o.orgId });
    expect(view).toEqual({
      quotas: {
        apps: { limit: 3, used: 3, source: "organization" },
        services: { limit: 2, used: 2, source: "organization" },
        databases: { limit: DEFAULT_QUOTAS.databases, used: 0, source: "default" },
        domains: { limit: 3, used: 2, source: "organization" },
        channels: { limit: DEFAULT_QUOTAS.channels, used: 0, source: "default" },
      },
    });
    const other = await seedOrg(db, "quota-other");
    const theirs = await refusal(getQuotas({ ctx: other, orgId: o.orgId }));
    const none = await refusal(getQuotas({ ctx: other, orgId: "00000000-0000-4000-8000-000000000000" }));
    expect(theirs).toMatchObject({ code: "not_found" });
    expect({ ...theirs }).toEqual({ ...none });
    expect(theirs?.message).toBe(none?.message);
  });
});

describe("cloning an environment respects the quotas, all or nothing", () => {
  it("refuses a clone that would pass the apps quota, creating no environment and copying nothing; with room it clones", async () => {
    const o = await seedOrg(db, "quota-clone");
    for (const name of ["shop", "blog"]) await createApp({ ctx: o, envId: o.envId, input: { name } });
    await createService({ ctx: o, envId: o.envId, input: svc("web", "shop") });
    await createService({ ctx: o, envId: o.envId, input: svc("cms", "blog") });
    await setOrgQuotas(db, o.orgId, { apps: 3 }, undefined);

    const err = await refusal(createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "staging", from: o.envId } }));
    expect(err).toMatchObject({ code: "quota_exceeded" });
    expect(err?.message).toContain("apps (3); it has 2 and this would add 2");
    expect(await db.select().from(environment).where(eq(environment.orgId, o.orgId))).toHaveLength(1);
    expect([await appsOf(o), await servicesOf(o)]).toEqual([2, 2]);

    await setOrgQuotas(db, o.orgId, { apps: 4, services: 3 }, undefined);
    expect(await refusal(createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "staging", from: o.envId } }))).toMatchObject({
      message: expect.stringContaining("services (3)"),
    });
    expect([await appsOf(o), await servicesOf(o)]).toEqual([2, 2]);

    await setOrgQuotas(db, o.orgId, { services: 4 }, undefined);
    await createEnvironment({ ctx: o, projectId: o.projectId, input: { name: "staging", from: o.envId } });
    expect([await appsOf(o), await servicesOf(o)]).toEqual([4, 4]);
  });

  it("parallel clones of which only one fits: exactly one succeeds, the others are refused, none deadlocks", async () => {
    const o = await seedOrg(db, "quota-clones");
    await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createService({ ctx: o, envId: o.envId, input: svc("web", "shop") });
    await setOrgQuotas(db, o.orgId, { apps: 2 }, undefined);
    const results = await Promise.all(
      ["c1", "c2", "c3", "c4"].map((name) => refusal(createEnvironment({ ctx: o, projectId: o.projectId, input: { name, from: o.envId } }))),
    );
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.filter((r) => r?.code === "quota_exceeded")).toHaveLength(3);
    expect([await appsOf(o), await servicesOf(o)]).toEqual([2, 2]);
  });
});

describe("parallel creates and installation defaults", () => {
  it("many parallel creates at quota-1 end with exactly the quota", async () => {
    const o = await seedOrg(db, "quota-race");
    await setOrgQuotas(db, o.orgId, { apps: 5 }, undefined);
    for (const name of ["r1", "r2", "r3", "r4"]) await createApp({ ctx: o, envId: o.envId, input: { name } });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => refusal(createApp({ ctx: o, envId: o.envId, input: { name: `p${i}` } }))));
    expect(results.filter((r) => r === null)).toHaveLength(1);
    expect(results.filter((r) => r?.code === "quota_exceeded")).toHaveLength(7);
    expect(await appsOf(o)).toBe(5);
  });

  it("applies the installation defaults (ctx.quotas, from LEVELRAIL_QUOTA_*) when the organization has no row", async () => {
    const o = await seedOrg(db, "quota-default");
    const ctx = { ...o, quotas: { ...DEFAULT_QUOTAS, apps: 2 } };
    await createApp({ ctx, envId: o.envId, input: { name: "d1" } });
    await createApp({ ctx, envId: o.envId, input: { name: "d2" } });
    expect(await refusal(createApp({ ctx, envId: o.envId, input: { name: "d3" } }))).toMatchObject({
      code: "quota_exceeded",
      message: expect.stringContaining("apps (2)"),
    });
    expect(await db.select().from(orgQuota).where(eq(orgQuota.orgId, o.orgId))).toEqual([]);
    expect((await getQuotas({ ctx, orgId: o.orgId })).quotas.apps).toEqual({ limit: 2, used: 2, source: "default" });
    // Without ctx.quotas, the documented defaults.
    expect((await getQuotas({ ctx: o, orgId: o.orgId })).quotas.apps).toEqual({ limit: DEFAULT_QUOTAS.apps, used: 2, source: "default" });
    // The organization's own limit wins over the default.
    await setOrgQuotas(db, o.orgId, { apps: 3 }, undefined);
    await createApp({ ctx, envId: o.envId, input: { name: "d3" } });
    expect(await appsOf(o)).toBe(3);
  });
});

describe("levelrail quota show|set (the administrator's verbs)", () => {
  it("sets some quotas, keeps the others, puts one back to the default with null, and resets all", async () => {
    const o = await seedOrg(db, "quota-cli");
    const defaults = { ...DEFAULT_QUOTAS, services: 7 };
    let shown = await showOrgQuotas(db, o.orgId, defaults);
    expect(shown.org).toEqual({ id: o.orgId, name: expect.stringContaining("quota-cli") });
    expect(shown.quotas.services).toEqual({ limit: 7, used: 0, source: "default" });

    shown = await setOrgQuotas(db, o.orgId, { apps: 10, domains: 0 }, defaults);
    expect(shown.quotas.apps).toEqual({ limit: 10, used: 0, source: "organization" });
    expect(shown.quotas.domains).toEqual({ limit: 0, used: 0, source: "organization" });
    shown = await setOrgQuotas(db, o.orgId, { services: 9 }, defaults);
    expect([shown.quotas.apps.limit, shown.quotas.services.limit, shown.quotas.domains.limit]).toEqual([10, 9, 0]);
    shown = await setOrgQuotas(db, o.orgId, { apps: null }, defaults);
    expect(shown.quotas.apps).toEqual({ limit: DEFAULT_QUOTAS.apps, used: 0, source: "default" });
    shown = await setOrgQuotas(db, o.orgId, { reset: true }, defaults);
    expect(Object.values(shown.quotas).map((q) => q.source)).toEqual(["default", "default", "default", "default", "default"]);
    expect(await db.select().from(orgQuota).where(eq(orgQuota.orgId, o.orgId))).toEqual([]);
    shown = await setOrgQuotas(db, o.orgId, { reset: true, databases: 1 }, defaults);
    expect(shown.quotas.databases).toEqual({ limit: 1, used: 0, source: "organization" });
  });

  it("refuses a bad limit naming the quota, and an unknown organization, writing nothing", async () => {
    const o = await seedOrg(db, "quota-cli-bad");
    expect(await refusal(setOrgQuotas(db, o.orgId, { apps: -1 }, undefined))).toMatchObject({ code: "invalid_input", field: "apps" });
    expect(await refusal(setOrgQuotas(db, o.orgId, { services: 1.5 }, undefined))).toMatchObject({ code: "invalid_input", field: "services" });
    expect(await refusal(setOrgQuotas(db, o.orgId, { widgets: 1 }, undefined))).toMatchObject({ code: "invalid_input", field: "widgets" });
    expect(await refusal(setOrgQuotas(db, "00000000-0000-4000-8000-000000000000", { apps: 1 }, undefined))).toMatchObject({ code: "not_found", field: "org" });
    expect(await refusal(showOrgQuotas(db, "not-an-id", undefined))).toMatchObject({ code: "not_found", field: "org" });
    expect(await db.select().from(orgQuota).where(eq(orgQuota.orgId, o.orgId))).toEqual([]);
  });
});
