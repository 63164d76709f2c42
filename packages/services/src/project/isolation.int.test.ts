import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { envVar, secret } from "@levelrail/db/schema/config";
import { hookRun } from "@levelrail/db/schema/hooks";
import { environment } from "@levelrail/db/schema/orgs";
import { app, release, service } from "@levelrail/db/schema/services";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp, deleteApp, getApp, listApps } from "../app/app";
import { configDrift, effectiveEnv } from "../env/effective";
import { deleteSecret, listSecrets, putSecret } from "../env/secrets";
import { getTierEnv, putTierEnv } from "../env/vars";
import { getHookRun, listHookRuns } from "../hooks/list";
import { deployService, listReleases, promoteService, restartService, rollbackService } from "../release/deploy";
import { getService, getStatus, listServices, listServicesPage } from "../service/view";
import { createService, deleteService, patchService } from "../service/write";
import { createEnvironment, deleteEnvironment } from "./environment";
import { getEnvironment, listEnvironments } from "./list";
import { refusalBody as refusal } from "@levelrail/testkit/refusal";

/**
 * Story 5 of issue 10 at the service layer: two organizations each have `shop/web` in `production`.
 * Every verb called by organization B on organization A's environment (by id, with A's names) must
 * refuse exactly as it refuses a random environment id that names nothing: same code, message and
 * field, and nothing of A's changes.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let aStaging: string;
let aHookRunId: string;

const IMAGE = "registry.example.com/shop:1.0";

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "isolation");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "orga");
  b = await seedOrg(db, "orgb");
  for (const o of [a, b]) {
    await createApp({ ctx: o, envId: o.envId, input: { name: "shop" } });
    await createService({ ctx: o, envId: o.envId, input: { name: "web", app: "shop", image: IMAGE, port: 8080, env: { LOG_LEVEL: "info" } } });
    await putSecret({ ctx: o, envId: o.envId, name: "web", key: "API_TOKEN", input: { value: `token-of-${o.orgId}` } });
    await putTierEnv({ ctx: o, tier: "environment", id: o.envId, input: { vars: { TIER: "production" } } });
  }
  aStaging = (await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: "staging", from: a.envId } })).id;
  // A's web has two successful releases (so restart, rollback and promote would all go ahead for A) and a hook run.
  for (const _ of [1, 2]) {
    const r = await deployService({ ctx: a, envId: a.envId, name: "web", input: {} });
    await db.update(release).set({ outcome: "succeeded", imageId: `sha256:${"a".repeat(64)}`, finishedAt: new Date() }).where(eq(release.id, r.id));
  }
  const [web] = await db.select().from(service).where(and(eq(service.orgId, a.orgId), eq(service.environmentId, a.envId)));
  const [run] = await db
    .insert(hookRun)
    .values({ orgId: a.orgId, serviceId: web!.id, releaseId: web!.currentReleaseId!, phase: "pre", command: ["true"], attempt: "1", outcome: "succeeded", output: "a's output" })
    .returning({ id: hookRun.id });
  aHookRunId = run!.id;
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** Everything of A's that a verb could change, to compare before and after B's attempts. */
async function snapshotOfA() {
  const services = await db.select().from(service).where(eq(service.orgId, a.orgId)).orderBy(service.id);
  const apps = await db.select().from(app).where(eq(app.orgId, a.orgId)).orderBy(app.id);
  const envs = await db.select().from(environment).where(eq(environment.orgId, a.orgId)).orderBy(environment.id);
  const vars = await db.select().from(envVar).where(eq(envVar.orgId, a.orgId)).orderBy(envVar.id);
  const secrets = await db.select().from(secret).where(eq(secret.orgId, a.orgId)).orderBy(secret.id);
  const [releases] = await db.select({ n: count() }).from(release).where(eq(release.orgId, a.orgId));
  const [runs] = await db.select({ n: count() }).from(hookRun).where(eq(hookRun.orgId, a.orgId));
  return { services, apps, envs, vars, secrets, releases: releases?.n, runs: runs?.n };
}

type Verb = [what: string, call: (envId: string) => Promise<unknown>];

/** Every verb inside an environment, as B calls it with A's names. */
const verbs = (): Verb[] => [
  ["apps list", (envId) => listApps({ ctx: b, envId })],
  ["apps get", (envId) => getApp({ ctx: b, envId, name: "shop" })],
  ["apps create", (envId) => createApp({ ctx: b, envId, input: { name: "shop" } })],
  ["apps delete", (envId) => deleteApp({ ctx: b, envId, name: "shop" })],
  ["app hook runs", (envId) => listHookRuns({ ctx: b, envId, app: "shop", input: {} })],
  ["service hook runs", (envId) => listHookRuns({ ctx: b, envId, app: "shop", input: { service: "web" } })],
  ["services list", (envId) => listServices({ ctx: b, envId })],
  ["services create", (envId) => createService({ ctx: b, envId, input: { name: "web", app: "shop", image: IMAGE, port: 8080 } })],
  ["services get", (envId) => getService({ ctx: b, envId, name: "web" })],
  ["services patch", (envId) => patchService({ ctx: b, envId, name: "web", input: { port: 9090 } })],
  ["services delete", (envId) => deleteService({ ctx: b, envId, name: "web" })],
  ["deploy", (envId) => deployService({ ctx: b, envId, name: "web", input: { image: "registry.example.com/evil:1" } })],
  ["restart", (envId) => restartService({ ctx: b, envId, name: "web" })],
  ["rollback", (envId) => rollbackService({ ctx: b, envId, name: "web" })],
  ["promote from", (envId) => promoteService({ ctx: b, envId, name: "web", input: { to: b.envId } })],
  ["promote to", (envId) => promoteService({ ctx: b, envId: b.envId, name: "web", input: { to: envId } })],
  ["status", (envId) => getStatus({ ctx: b, envId, name: "web" })],
  ["releases", (envId) => listReleases({ ctx: b, envId, name: "web" })],
  ["drift", (envId) => configDrift({ ctx: b, envId, name: "web" })],
  ["env", (envId) => effectiveEnv({ ctx: b, envId, name: "web" })],
  ["secrets list", (envId) => listSecrets({ ctx: b, envId, name: "web" })],
  ["secrets put", (envId) => putSecret({ ctx: b, envId, name: "web", key: "API_TOKEN", input: { value: "overwritten" } })],
  ["secrets delete", (envId) => deleteSecret({ ctx: b, envId, name: "web", key: "API_TOKEN" })],
  ["environment get", (envId) => getEnvironment({ ctx: b, envId })],
  ["environment delete", (envId) => deleteEnvironment({ ctx: b, envId })],
  ["env tier get", (envId) => getTierEnv({ ctx: b, tier: "environment", id: envId })],
  ["env tier put", (envId) => putTierEnv({ ctx: b, tier: "environment", id: envId, input: { vars: { TIER: "evil" } } })],
  ["clone into B's project", (envId) => createEnvironment({ ctx: b, projectId: b.projectId, input: { name: "stolen", from: envId } })],
];

describe("another organization's environment looks exactly like one that does not exist", () => {
  it("both organizations have shop/web in production", async () => {
    const [wa, wb] = [await getService({ ctx: a, envId: a.envId, name: "web" }), await getService({ ctx: b, envId: b.envId, name: "web" })];
    expect([wa.app, wb.app]).toEqual(["shop", "shop"]);
    expect(wa.id).not.toBe(wb.id);
    expect((await getEnvironment({ ctx: a, envId: a.envId })).name).toBe("production");
    expect((await getEnvironment({ ctx: b, envId: b.envId })).name).toBe("production");
  });

  for (const target of ["production", "staging"] as const) {
    it.each(verbs())(`%s on A's ${target} answers like a random environment id`, async (what, call) => {
      const before = await snapshotOfA();
      const foreign = await refusal(() => call(target === "production" ? a.envId : aStaging));
      const missing = await refusal(() => call(randomUUID()));
      expect(foreign).toEqual(missing);
      // `from` is a body field: 400 naming it, for a foreign id as for a missing one.
      expect(foreign.code).toBe(what.startsWith("clone") ? "invalid_input" : "not_found");
      expect(foreign.message).not.toContain(a.orgId);
      expect(await snapshotOfA()).toEqual(before);
    });
  }

  it("the services page filtered by A's environment answers like one filtered by a random id (empty)", async () => {
    const foreign = await listServicesPage({ ctx: b, input: { environmentId: a.envId } });
    const missing = await listServicesPage({ ctx: b, input: { environmentId: randomUUID() } });
    expect(foreign).toEqual(missing);
    expect(foreign.total).toBe(0);
  });

  it("A's project and its environments answer like a random project id", async () => {
    const cases: [string, (id: string) => Promise<unknown>][] = [
      ["environments list", (id) => listEnvironments({ ctx: b, projectId: id })],
      ["environment create", (id) => createEnvironment({ ctx: b, projectId: id, input: { name: "preview" } })],
      ["clone inside A's project", (id) => createEnvironment({ ctx: b, projectId: id, input: { name: "preview", from: a.envId } })],
      ["project env tier get", (id) => getTierEnv({ ctx: b, tier: "project", id })],
    ];
    for (const [what, call] of cases) {
      const foreign = await refusal(() => call(a.projectId));
      const missing = await refusal(() => call(randomUUID()));
      expect(foreign, what).toEqual(missing);
      expect(foreign.code, what).toBe("not_found");
    }
  });

  it("A's hook run and organization tier answer like random ids", async () => {
    expect(await refusal(() => getHookRun({ ctx: b, id: aHookRunId }))).toEqual(await refusal(() => getHookRun({ ctx: b, id: randomUUID() })));
    expect(await refusal(() => getTierEnv({ ctx: b, tier: "organization", id: a.orgId }))).toEqual(
      await refusal(() => getTierEnv({ ctx: b, tier: "organization", id: randomUUID() })),
    );
  });

  it("B's own names are B's: its verbs still work and see only B's data", async () => {
    expect((await listApps({ ctx: b, envId: b.envId })).map((x) => x.name)).toEqual(["shop"]);
    expect((await listServices({ ctx: b })).map((s) => s.id)).toEqual([(await getService({ ctx: b, envId: b.envId, name: "web" })).id]);
    expect(await listSecrets({ ctx: b, envId: b.envId, name: "web" })).toEqual([expect.objectContaining({ key: "API_TOKEN" })]);
    expect((await listReleases({ ctx: b, envId: b.envId, name: "web" })).length).toBe(0);
    expect((await listHookRuns({ ctx: b, envId: b.envId, app: "shop", input: {} })).runs).toEqual([]);
  });
});
