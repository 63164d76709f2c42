import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { MIGRATIONS_DIR, runMigrations } from "@levelrail/db/migrate";
import { type EnvEntry, resolveEnv } from "@levelrail/spec/env";
import { testKit } from "@levelrail/testkit/seed";
import { requireDatabaseUrl } from "@levelrail/testkit/db";
import { envTargetOf, pgEnvStores } from "../env/sources";

/**
 * Migration 0005 (environments as namespaces) on a database seeded in the old shape: every service's
 * effective environment (keys, sources and values, compared in memory and never printed) is the same
 * before and after; an app spanning two environments is split; apps without services land in their
 * organization's default/production (made where missing); the new constraints hold.
 */
const kit = testKit();
let name: string;
let url: string;
let sql: Sql;
let db: Db;
let migrationsDir: string;

/** Ids of the seeded rows, by a label of the test's own. */
const ids: Record<string, string> = {};
let before: Map<string, EnvEntry[]>;
/** How many environments the services of `shop` were in before the migration. */
let shopSpanBefore: number;

const uuid = () => {
  const b = randomBytes(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

/** The migrations folder as it was before 0005: the same files and journal entries, up to 0004. */
function migrationsUpTo(lastIdx: number): string {
  const dir = mkdtempSync(join(tmpdir(), "lr-migrations-"));
  mkdirSync(join(dir, "meta"));
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_DIR, "meta", "_journal.json"), "utf8")) as { entries: { idx: number; tag: string }[] };
  journal.entries = journal.entries.filter((e) => e.idx <= lastIdx);
  expect(journal.entries.map((e) => e.tag)).toContain("0004_service_status_restarts");
  for (const e of journal.entries) copyFileSync(join(MIGRATIONS_DIR, `${e.tag}.sql`), join(dir, `${e.tag}.sql`));
  writeFileSync(join(dir, "meta", "_journal.json"), JSON.stringify(journal));
  return dir;
}

/** Every service's effective environment, resolved as the worker resolves it (secret values included, in memory only). */
async function effectiveEnvs(): Promise<Map<string, EnvEntry[]>> {
  const out = new Map<string, EnvEntry[]>();
  const rows = await sql<{ id: string }[]>`select id from service order by id`;
  for (const { id } of rows) {
    const target = await envTargetOf(db, id);
    if (!target) throw new Error(`service ${id} has no env target`);
    out.set(id, await resolveEnv(target, pgEnvStores(db, kit.keyring)));
  }
  return out;
}

/** A digest of an env, so a difference can be reported without printing a value. */
const digest = (entries: EnvEntry[] | undefined) => createHash("sha256").update(JSON.stringify(entries ?? null)).digest("hex").slice(0, 12);

async function seedOldShape() {
  const org = async (label: string) => {
    const id = uuid();
    await sql`insert into organization (id, name) values (${id}, ${label})`;
    ids[`org:${label}`] = id;
    return id;
  };
  const project = async (orgId: string, label: string, projectName: string) => {
    const id = uuid();
    await sql`insert into project (id, org_id, name) values (${id}, ${orgId}, ${projectName})`;
    ids[`project:${label}`] = id;
    return id;
  };
  const env = async (orgId: string, projectId: string, label: string, envName: string) => {
    const id = uuid();
    await sql`insert into environment (id, org_id, project_id, name) values (${id}, ${orgId}, ${projectId}, ${envName})`;
    ids[`env:${label}`] = id;
    return id;
  };
  const app = async (orgId: string, label: string, appName: string) => {
    const id = uuid();
    await sql`insert into app (id, org_id, name) values (${id}, ${orgId}, ${appName})`;
    ids[`app:${label}`] = id;
    return id;
  };
  let clock = Date.parse("2024-01-01T00:00:00Z");
  const svc = async (orgId: string, appId: string, envId: string, svcName: string, env: Record<string, string>) => {
    const id = uuid();
    clock += 1000;
    await sql`insert into service (id, org_id, app_id, environment_id, name, image, port, health_path, ready_budget_seconds, strategy, env, database_env, hooks, domains, created_at)
      values (${id}, ${orgId}, ${appId}, ${envId}, ${svcName}, 'registry.example.com/shop:1', 8080, '/healthz', 60, 'blue-green',
        ${JSON.stringify(env)}::jsonb, '{}'::jsonb, '{"preDeploy":null,"postDeploy":null,"timeoutSeconds":300}'::jsonb, ${JSON.stringify([`${svcName}.example.com`])}::jsonb, ${new Date(clock).toISOString()}::timestamptz)`;
    ids[`service:${svcName}`] = id;
    return id;
  };
  const tier = async (orgId: string, scope: string, scopeId: string, vars: Record<string, string>) => {
    for (const [key, value] of Object.entries(vars)) await sql`insert into env_var (org_id, scope, scope_id, key, value) values (${orgId}, ${scope}, ${scopeId}, ${key}, ${value})`;
  };
  const secret = async (orgId: string, serviceId: string, key: string) => {
    await sql`insert into secret (org_id, service_id, key, sealed) values (${orgId}, ${serviceId}, ${key}, ${kit.keyring.seal(`value-${randomBytes(8).toString("hex")}`)})`;
  };

  // acme: default/production and default/staging; `shop` spans both (two services in production, one in staging).
  const acme = await org("acme");
  const acmeDefault = await project(acme, "acme-default", "default");
  const prod = await env(acme, acmeDefault, "acme-production", "production");
  const staging = await env(acme, acmeDefault, "acme-staging", "staging");
  const shop = await app(acme, "shop", "shop");
  const web = await svc(acme, shop, prod, "web", { D: "service", SHADOW: "service" });
  await svc(acme, shop, prod, "api", {});
  const webStaging = await svc(acme, shop, staging, "web-staging", { D: "service-staging" });
  // An app whose every service is in staging keeps its id, in staging.
  const tools = await app(acme, "tools", "tools");
  await svc(acme, tools, staging, "cron", { E: "cron" });
  // An app with no services: lands in acme's existing default/production.
  await app(acme, "empty", "empty");
  await tier(acme, "organization", acme, { A: "org", B: "org", C: "org", SHADOW: "org" });
  await tier(acme, "project", acmeDefault, { B: "project", C: "project" });
  await tier(acme, "environment", prod, { C: "production", ONLY_PROD: "1" });
  await tier(acme, "environment", staging, { C: "staging", ONLY_STAGING: "1" });
  await secret(acme, web, "SHADOW");
  await secret(acme, web, "API_TOKEN");
  await secret(acme, webStaging, "API_TOKEN");

  // nodefault: its only project is `main/live`; an app without services makes default/production for it.
  const nodefault = await org("nodefault");
  const main = await project(nodefault, "nodefault-main", "main");
  const live = await env(nodefault, main, "nodefault-live", "live");
  const api2 = await app(nodefault, "api2", "shop"); // the same app name as acme's: another organization
  await svc(nodefault, api2, live, "shop-api", { F: "nodefault" });
  await app(nodefault, "lonely", "lonely");
  await tier(nodefault, "organization", nodefault, { A: "nodefault-org" });
  await tier(nodefault, "environment", live, { C: "live" });

  // bare: no project at all, one app without services.
  const bare = await org("bare");
  await app(bare, "bare-app", "site");
  // default exists, production does not: only the environment is made.
  const halfway = await org("halfway");
  const halfwayDefault = await project(halfway, "halfway-default", "default");
  await env(halfway, halfwayDefault, "halfway-dev", "dev");
  await app(halfway, "halfway-app", "site");
}

beforeAll(async () => {
  const base = requireDatabaseUrl();
  name = `lrtest_migration_${randomBytes(3).toString("hex")}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  url = u.toString();
  ({ db, sql } = createDb(url, { max: 1 }));
  migrationsDir = migrationsUpTo(4);
  await migrate(db, { migrationsFolder: migrationsDir });
  await seedOldShape();
  before = await effectiveEnvs();
  shopSpanBefore = (await sql<{ n: number }[]>`select count(distinct environment_id)::int as n from service where app_id = ${ids["app:shop"]!}`)[0]!.n;
  // The real migrator, on the real folder: applies 0005 and whatever follows.
  await runMigrations(url);
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  if (migrationsDir) rmSync(migrationsDir, { recursive: true, force: true });
  const admin = postgres(requireDatabaseUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

/** The SQLSTATE a statement fails with, or null when it succeeds. */
async function sqlState(run: () => Promise<unknown>): Promise<string | null> {
  try {
    await run();
    return null;
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}

const appOf = async (serviceLabel: string) =>
  (await sql<{ id: string; name: string; environment_id: string }[]>`select a.id, a.name, a.environment_id from app a join service s on s.app_id = a.id where s.id = ${ids[`service:${serviceLabel}`]!}`)[0]!;

describe("migration 0005 on a database in the old shape", () => {
  it("the seed was the old shape (one app spanning two environments) and the real migrator applied 0005", async () => {
    expect(before.size).toBe(5);
    expect(shopSpanBefore).toBe(2);
    const [row] = await sql<{ n: number }[]>`select count(distinct environment_id)::int as n from service where app_id = ${ids["app:shop"]!}`;
    expect(row!.n).toBe(1);
    expect((await sql`select 1 from drizzle.__drizzle_migrations`).length).toBeGreaterThanOrEqual(6);
  });

  it("every service's effective environment (keys, sources, values) is the same before and after", async () => {
    const after = await effectiveEnvs();
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [id, entries] of before) {
      const now = after.get(id);
      // Compared in memory; a difference names keys and sources and digests, never a value.
      const shape = (e: EnvEntry[] | undefined) => (e ?? []).map((x) => `${x.key}:${x.source}:${x.overrides.join(">")}`);
      expect(shape(now), `keys and sources of service ${id}`).toEqual(shape(entries));
      expect(isDeepStrictEqual(now, entries), `values of service ${id} (digests ${digest(entries)} → ${digest(now)})`).toBe(true);
    }
    // The seed exercised every tier and secrets.
    const sources = new Set([...before.values()].flat().map((e) => e.source));
    expect([...sources].sort()).toEqual(["environment", "organization", "project", "secret", "service"]);
  });

  it("the app spanning two environments is split: one app per environment, same name, distinct ids, each service's app in its environment", async () => {
    const shops = await sql<{ id: string; environment_id: string }[]>`select id, environment_id from app where org_id = ${ids["org:acme"]!} and name = 'shop' order by id`;
    expect(shops).toHaveLength(2);
    expect(new Set(shops.map((a) => a.id)).size).toBe(2);
    expect(shops.map((a) => a.environment_id).sort()).toEqual([ids["env:acme-production"]!, ids["env:acme-staging"]!].sort());
    // The original id stays where most of its services are (production); staging's copy is new.
    expect(await appOf("web")).toMatchObject({ id: ids["app:shop"], name: "shop", environment_id: ids["env:acme-production"] });
    expect(await appOf("api")).toMatchObject({ id: ids["app:shop"], environment_id: ids["env:acme-production"] });
    const stagingShop = await appOf("web-staging");
    expect(stagingShop).toMatchObject({ name: "shop", environment_id: ids["env:acme-staging"] });
    expect(stagingShop.id).not.toBe(ids["app:shop"]);
    // An app whose services are all in one environment keeps its id there.
    expect(await appOf("cron")).toMatchObject({ id: ids["app:tools"], environment_id: ids["env:acme-staging"] });
    expect(await appOf("shop-api")).toMatchObject({ id: ids["app:api2"], name: "shop", environment_id: ids["env:nodefault-live"] });
    // Every service's app is in the service's environment.
    const mismatched = await sql`select s.id from service s join app a on a.id = s.app_id where a.environment_id <> s.environment_id`;
    expect(mismatched).toEqual([]);
  });

  it("apps without services land in their organization's default/production, made where missing", async () => {
    const home = async (appLabel: string) =>
      (
        await sql<{ org: string; project: string; environment: string; env_org: string }[]>`
          select a.org_id as org, p.name as project, e.name as environment, e.org_id as env_org
          from app a join environment e on e.id = a.environment_id join project p on p.id = e.project_id where a.id = ${ids[`app:${appLabel}`]!}`
      )[0]!;
    expect(await home("empty")).toEqual({ org: ids["org:acme"], project: "default", environment: "production", env_org: ids["org:acme"] });
    expect((await sql`select id from environment where id = (select environment_id from app where id = ${ids["app:empty"]!})`)[0]?.id).toBe(ids["env:acme-production"]);
    for (const [label, org] of [["lonely", "nodefault"], ["bare-app", "bare"], ["halfway-app", "halfway"]] as const) {
      expect(await home(label), label).toEqual({ org: ids[`org:${org}`], project: "default", environment: "production", env_org: ids[`org:${org}`] });
    }
    // halfway's existing default project was used, not duplicated.
    const halfwayProjects = await sql`select id from project where org_id = ${ids["org:halfway"]!}`;
    expect(halfwayProjects.map((p) => p.id)).toEqual([ids["project:halfway-default"]]);
    // Organizations and projects that already had no need for one got none.
    expect(await sql`select 1 from project where org_id = ${ids["org:acme"]!} and name <> 'default'`).toEqual([]);
    expect((await sql`select name from environment where project_id = ${ids["project:nodefault-main"]!}`).map((e) => e.name)).toEqual(["live"]);
    expect(await sql`select 1 from app where environment_id is null`).toEqual([]);
  });

  it("the new constraints hold: app and service names are unique per environment, a service's app is in its environment", async () => {
    const [acme, prod, staging] = [ids["org:acme"]!, ids["env:acme-production"]!, ids["env:acme-staging"]!];
    expect(await sqlState(() => sql`insert into app (org_id, environment_id, name) values (${acme}, ${prod}, 'shop')`)).toBe("23505");
    const qa = uuid();
    await sql`insert into environment (id, org_id, project_id, name) values (${qa}, ${acme}, ${ids["project:acme-default"]!}, 'qa')`;
    const [qaShop] = await sql<{ id: string }[]>`insert into app (org_id, environment_id, name) values (${acme}, ${qa}, 'shop') returning id`;
    expect(qaShop?.id).toBeDefined();

    const insertService = (appId: string, envId: string, svcName: string) =>
      sql`insert into service (org_id, app_id, environment_id, name, image, port, health_path, ready_budget_seconds, strategy, env, database_env, hooks, domains)
        values (${acme}, ${appId}, ${envId}, ${svcName}, 'registry.example.com/shop:1', 8080, '/healthz', 60, 'blue-green', '{}', '{}', '{"preDeploy":null,"postDeploy":null,"timeoutSeconds":300}', '[]')`;
    // `web` again in production: refused; `web` in qa (and in staging, where it is free): fine.
    expect(await sqlState(() => insertService(ids["app:shop"]!, prod, "web"))).toBe("23505");
    expect(await sqlState(() => insertService(qaShop!.id, qa, "web"))).toBeNull();
    const stagingShop = await appOf("web-staging");
    expect(await sqlState(() => insertService(stagingShop.id, staging, "web"))).toBeNull();
    // A service whose app is in another environment: refused by the composite foreign key.
    expect(await sqlState(() => insertService(ids["app:shop"]!, qa, "stray"))).toBe("23503");
    // Environment names stay unique per project, project names per organization.
    expect(await sqlState(() => sql`insert into environment (org_id, project_id, name) values (${acme}, ${ids["project:acme-default"]!}, 'qa')`)).toBe("23505");
    expect(await sqlState(() => sql`insert into project (org_id, name) values (${acme}, 'default')`)).toBe("23505");
  });
});
