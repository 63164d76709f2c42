import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { serviceEvent } from "@levelrail/db/schema/observability";
import { release, service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { createEnvironment } from "../project/environment";
import { findService, releaseSpecOf } from "../service/view";
import { createService } from "../service/write";
import { doraMetrics } from "./dora";

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** The end of every window asked for here. */
const NOW = new Date("2026-11-30T12:00:00Z");
const ago = (ms: number) => new Date(NOW.getTime() - ms);

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;
let stagingId: string;

/** A release of `name` in `envId` that reached `outcome` `finishedAgo` before NOW, created a minute earlier. */
async function seedRelease(
  ctx: typeof a,
  envId: string,
  name: string,
  r: { kind?: "deploy" | "restart" | "rollback" | "promote"; outcome: "succeeded" | "failed" | "superseded"; finishedAgo: number; builtAgo?: number; createdAgo?: number },
) {
  const { service: s } = await findService(ctx, envId, name, "service.read");
  const [row] = await db.select().from(service).where(eq(service.id, s.id));
  await db.insert(release).values({
    orgId: ctx.orgId,
    serviceId: s.id,
    kind: r.kind ?? "deploy",
    spec: releaseSpecOf(row!),
    restartNonce: "",
    imageId: "sha256:seeded",
    imageCreatedAt: r.builtAgo === undefined ? null : ago(r.builtAgo),
    createdBy: "seed@test.levelrail.local",
    createdAt: ago(r.createdAgo ?? r.finishedAgo + MIN),
    startedAt: ago(r.finishedAgo + MIN),
    finishedAt: ago(r.finishedAgo),
    outcome: r.outcome,
  });
  return s.id;
}

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "dora");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "doraa");
  b = await seedOrg(db, "dorab");
  stagingId = (await createEnvironment({ ctx: a, projectId: a.projectId, input: { name: "staging" } })).id;
  for (const [ctx, envId] of [
    [a, a.envId],
    [a, stagingId],
    [b, b.envId],
  ] as const) {
    await createApp({ ctx, envId, input: { name: "shop" } });
    for (const name of ["web", "api"]) await createService({ ctx, envId, input: { name, app: "shop", image: "registry.example.com/shop:1", port: 8080 } });
  }

  // production/web: two changes that went live (lead 2 h and 1 day), a failed one restored 3 h
  // later, then a release rolled back 20 minutes after it went live.
  await seedRelease(a, a.envId, "web", { outcome: "succeeded", finishedAgo: 6 * DAY, builtAgo: 6 * DAY + 2 * HOUR });
  await seedRelease(a, a.envId, "web", { outcome: "failed", finishedAgo: 5 * DAY });
  await seedRelease(a, a.envId, "web", { outcome: "succeeded", finishedAgo: 5 * DAY - 3 * HOUR, builtAgo: 6 * DAY - 3 * HOUR });
  await seedRelease(a, a.envId, "web", { outcome: "succeeded", finishedAgo: 2 * DAY, builtAgo: 2 * DAY + 30 * MIN });
  await seedRelease(a, a.envId, "web", { kind: "rollback", outcome: "succeeded", createdAgo: 2 * DAY - 20 * MIN, finishedAgo: 2 * DAY - 21 * MIN });
  // Never reached an outcome, or finished before the window: not read.
  await seedRelease(a, a.envId, "web", { outcome: "superseded", finishedAgo: DAY });
  await seedRelease(a, a.envId, "web", { outcome: "failed", finishedAgo: 40 * DAY });
  // production/api: a crash loop of 45 minutes and a restart (no change).
  const api = await seedRelease(a, a.envId, "api", { kind: "restart", outcome: "succeeded", finishedAgo: 3 * DAY });
  await db.insert(serviceEvent).values([
    { orgId: a.orgId, serviceId: api, kind: "crash_loop_started", at: ago(DAY) },
    { orgId: a.orgId, serviceId: api, kind: "crash_loop_ended", at: ago(DAY - 45 * MIN) },
  ]);
  // staging/web: one promotion whose image was built 3 days before it went live.
  await seedRelease(a, stagingId, "web", { kind: "promote", outcome: "succeeded", finishedAgo: DAY, builtAgo: 4 * DAY });
  // Org B: a failed release that must never show in A's figures.
  await seedRelease(b, b.envId, "web", { outcome: "failed", finishedAgo: DAY });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("doraMetrics against PostgreSQL", () => {
  it("computes the fleet's, each environment's and each service's figures over the window", async () => {
    const d = await doraMetrics({ ctx: a, input: { window: "7d" }, now: NOW });
    expect(d).toMatchObject({ window: "7d", since: ago(7 * DAY).toISOString(), until: NOW.toISOString() });
    // 7 releases reached an outcome in the window: 5 of production/web, the restart, the promotion.
    expect(d.fleet).toMatchObject({
      releases: 7,
      deploys: 4,
      failedChanges: 2, // the failed one and the one rolled back within the hour
      restores: 2, // failed → 3 h, crash loop → 45 min (a rolled-back release opens no incident)
      openIncidents: 0,
    });
    expect(d.fleet.deploysPerDay).toBeCloseTo(4 / 7);
    expect(d.fleet.frequencyBand).toBe("high");
    // Lead times: 30 min, 2 h, 1 day, 3 days → median (2 h + 1 day) / 2 = 13 h: elite (under a day).
    expect(d.fleet.leadTimeMs).toBe(13 * HOUR);
    expect(d.fleet.leadTimeBand).toBe("elite");
    expect(d.fleet.changeFailureRate).toBeCloseTo(2 / 7);
    expect(d.fleet.changeFailureBand).toBe("low");
    // Restores: 45 min and 3 h → 1 h 52.5 min: high.
    expect(d.fleet.timeToRestoreMs).toBe(112.5 * MIN);
    expect(d.fleet.timeToRestoreBand).toBe("high");

    expect(d.environments.map((e) => [e.environment, e.figures.releases, e.figures.deploys])).toEqual([
      ["production", 6, 3],
      ["staging", 1, 1],
    ]);
    const byName = Object.fromEntries(d.services.map((s) => [`${s.environment}/${s.service}`, s.figures]));
    expect(Object.keys(byName)).toEqual(["production/api", "production/web", "staging/web"]);
    expect(byName["production/api"]).toMatchObject({ releases: 1, deploys: 0, timeToRestoreMs: 45 * MIN, timeToRestoreBand: "elite", leadTimeMs: null, leadTimeBand: null });
    expect(byName["production/web"]).toMatchObject({ releases: 5, deploys: 3, failedChanges: 2, leadTimeMs: 2 * HOUR, timeToRestoreMs: 3 * HOUR });
    expect(byName["staging/web"]).toMatchObject({ releases: 1, leadTimeMs: 3 * DAY, leadTimeBand: "high", changeFailureRate: 0, changeFailureBand: "elite" });
  });

  it("narrows to one environment or one service name, and the window bounds what is read", async () => {
    const staging = await doraMetrics({ ctx: a, input: { window: "7d", environmentId: stagingId }, now: NOW });
    expect(staging.services.map((s) => `${s.environment}/${s.service}`)).toEqual(["staging/web"]);
    const web = await doraMetrics({ ctx: a, input: { window: "7d", service: "web" }, now: NOW });
    expect(web.services.map((s) => `${s.environment}/${s.service}`)).toEqual(["production/web", "staging/web"]);
    // 90 days reach the failed release of 40 days ago.
    const long = await doraMetrics({ ctx: a, input: { window: "90d", service: "web", environmentId: a.envId }, now: NOW });
    expect(long.fleet).toMatchObject({ releases: 6, failedChanges: 3 });
    // `until` moves the window: the week before the seeded week has nothing.
    const before = await doraMetrics({ ctx: a, input: { window: "7d", until: ago(8 * DAY).toISOString() }, now: NOW });
    expect(before.fleet.releases).toBe(0);
    expect(before.services).toEqual([]);
  });

  it("`top` lists only the services with the most releases; the fleet's and environments' figures still count every one", async () => {
    const all = await doraMetrics({ ctx: a, input: { window: "7d" }, now: NOW });
    const top = await doraMetrics({ ctx: a, input: { window: "7d", top: "1" }, now: NOW });
    expect(all.servicesTotal).toBe(3);
    expect(top.servicesTotal).toBe(3);
    expect(top.services.map((s) => `${s.environment}/${s.service}`)).toEqual(["production/web"]);
    expect(top.fleet).toEqual(all.fleet);
    expect(top.environments).toEqual(all.environments);
    // Ties keep the name order: api and staging's web have one release each.
    const two = await doraMetrics({ ctx: a, input: { window: "7d", top: "2" }, now: NOW });
    expect(two.services.map((s) => `${s.environment}/${s.service}`)).toEqual(["production/web", "production/api"]);
    for (const bad of ["0", "1001", "x", "1.5"]) {
      await expect(doraMetrics({ ctx: a, input: { window: "7d", top: bad }, now: NOW }), bad).rejects.toMatchObject({ code: "invalid_input", field: "top" });
    }
  });

  it("reads only the caller's organization: another one's environment reads like one that does not exist", async () => {
    const theirs = await doraMetrics({ ctx: b, input: { window: "7d", environmentId: a.envId }, now: NOW });
    const none = await doraMetrics({ ctx: b, input: { window: "7d", environmentId: "00000000-0000-4000-8000-000000000000" }, now: NOW });
    expect(theirs).toEqual(none);
    expect(theirs.fleet.releases).toBe(0);
    const own = await doraMetrics({ ctx: b, input: { window: "7d" }, now: NOW });
    expect(own.fleet).toMatchObject({ releases: 1, failedChanges: 1, changeFailureRate: 1, openIncidents: 1 });
  });

  it.each([
    [{ window: "1y" }, "window"],
    [{ environmentId: "nope" }, "environmentId"],
    [{ until: "yesterday" }, "until"],
    [{ extra: "1" }, "extra"],
  ])("refuses %j with a 400 naming %s", async (input, field) => {
    const err = await doraMetrics({ ctx: a, input, now: NOW }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LevelrailError);
    expect(err).toMatchObject({ code: "invalid_input", field });
  });
});
