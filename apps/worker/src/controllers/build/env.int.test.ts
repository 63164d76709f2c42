import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { putSecret } from "@levelrail/services/env/secrets";
import { envTargetOf, pgEnvStores } from "@levelrail/services/env/sources";
import { createService } from "@levelrail/services/service/write";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { buildEnvFrom } from "./env";

/**
 * A build's args from the service's environment on PostgreSQL: plain values pass; a secret never
 * becomes a build arg (its value would stay in the built image's history), and the refusal names
 * the key, never the value.
 */
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let serviceId: string;
const SECRET = `npm_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "buildenv");
  ({ db, sql } = createDb(database.url));
  const kit = testKit();
  const ctx = await seedOrg(db, "buildenv", kit);
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  serviceId = (await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: "nginx:1", port: 8080, env: { NODE_ENV: "production" } } })).id;
  await putSecret({ ctx, envId: ctx.envId, name: "web", key: "NPM_TOKEN", input: { value: SECRET } });
  env = buildEnvFrom(pgEnvStores(db, kit.keyring), (id) => envTargetOf(db, id));
}, 120_000);

let env: ReturnType<typeof buildEnvFrom>;

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

describe("a build's args", () => {
  it("are the opted-in plain values, with every secret of the environment to redact", async () => {
    const r = await env.buildEnv(serviceId, ["NODE_ENV"]);
    expect(r).toEqual({ ok: true, args: { NODE_ENV: "production" }, secrets: [SECRET] });
  });

  it("never carry a secret: a build arg naming one is refused by key, so its value never reaches the image's history (issue 42, finding 12)", async () => {
    const r = await env.buildEnv(serviceId, ["NODE_ENV", "NPM_TOKEN"]);
    expect(r.ok).toBe(false);
    const problem = r.ok ? "" : r.problem;
    expect(problem).toBe("build arg NPM_TOKEN is a secret, and a build arg's value stays in the built image's history (docker history); remove it from the source's buildArgs");
    expect(JSON.stringify(r)).not.toContain(SECRET);
  });
});
