import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg } from "@levelrail/testkit/seed";
import { plan } from "./controllers/application/plan";
import { pgServiceStore } from "./store";

/**
 * A git-sourced service has no image ("") until its first build, and no release: the application
 * controller must not try to deploy it. Its desired state, read by the worker's own store, plans to
 * `stopped` (nothing pulled, nothing created), whatever `service.image` says.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "gitidle");
  ({ db, sql } = createDb(database.url));
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("a git-sourced service before its first build", () => {
  it("has no release in the worker's desired state, and plans to stopped: nothing pulled or created", async () => {
    const ctx = await seedOrg(db, "gitidle");
    await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
    const v = await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", port: 8080, source: { git: { url: "https://git.example.com/shop.git" } } } });
    expect(v.image).toBe("");
    const desired = await pgServiceStore(db).getDesiredService(v.id);
    expect(desired).not.toBeNull();
    expect(desired!.release).toBeNull();
    const step = plan(
      { serviceId: v.id, service: desired, shortName: "lrgs", drainMs: 0, upstreamDns: [], defaultHookTimeoutSeconds: 300 },
      { now: Date.now(), containers: [], hookContainers: [], env: null, localImageId: null, network: null, probes: {} },
    );
    expect(step).toMatchObject({ kind: "stopped", remove: [], status: { phase: "stopped", message: "not deployed yet" } });
  });
});
