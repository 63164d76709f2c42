import { describe, expect, it } from "vitest";
import type { SpecBody, SpecService } from "@levelrail/spec/env-spec";
import { DEFAULT_RESOURCES } from "@levelrail/spec/service";
import { type PlanInput, planIsEmpty, planSpec } from "./plan";

const svc = (name: string, extra: Partial<SpecService> = {}): SpecService => ({
  name,
  app: "shop",
  image: "registry.example.com/shop:1.0",
  port: 8080,
  healthPath: "/",
  readyBudgetSeconds: 60,
  strategy: "blue-green",
  env: {},
  databaseEnv: {},
  storageTarget: null,
  registryCredential: null,
  hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 },
  domains: [],
  resources: DEFAULT_RESOURCES,
  replicas: 1,
  placement: {},
  secrets: [],
  ...extra,
});

const BASE: SpecBody = {
  vars: { LOG_LEVEL: "info" },
  apps: [{ name: "shop" }],
  services: [svc("web", { secrets: ["API_KEY"] }), svc("worker")],
  databases: [{ name: "shop-db", engine: "postgres", version: "17", image: "postgres:17", backupSchedule: null }],
};

const change = (f: (b: SpecBody) => void): SpecBody => {
  const b = structuredClone(BASE);
  f(b);
  return b;
};

const run = (desired: SpecBody, over: Partial<PlanInput> = {}) => planSpec({ current: BASE, desired, running: {}, secretKeys: [], prune: false, ...over });
/** `action kind name [fields]` per change: what a row expects. */
const lines = (p: ReturnType<typeof planSpec>) => p.changes.map((c) => `${c.action} ${c.kind} ${c.name}${c.fields.length ? ` ${c.fields.map((f) => f.field).join(",")}` : ""}${c.refused ? " REFUSED" : ""}`);

describe("planSpec", () => {
  const table: { name: string; desired: SpecBody; over?: Partial<PlanInput>; changes: string[]; left?: string[] }[] = [
    { name: "the same body: nothing", desired: BASE, changes: [] },
    { name: "a database's image left out is the API's default", desired: change((b) => delete b.databases[0]!.image), changes: [] },
    { name: "a new var and a changed one", desired: change((b) => (b.vars = { LOG_LEVEL: "debug", NEW: "1" })), changes: ["change var LOG_LEVEL value", "create var NEW value"] },
    { name: "a var left out, kept", desired: change((b) => (b.vars = {})), changes: [], left: ["var LOG_LEVEL"] },
    { name: "a var left out, pruned", desired: change((b) => (b.vars = {})), over: { prune: true }, changes: ["delete var LOG_LEVEL"] },
    { name: "a new app, service and database", desired: change((b) => { b.apps.push({ name: "blog" }); b.services.push(svc("blog", { app: "blog" })); b.databases.push({ name: "blog-db", engine: "postgres", version: "18", backupSchedule: null }); }), changes: ["create app blog", "create database blog-db", "create service blog"] },
    { name: "fields of a service", desired: change((b) => { b.services[1]!.image = "registry.example.com/shop:2.0"; b.services[1]!.env = { A: "1" }; b.services[1]!.resources = { ...DEFAULT_RESOURCES, memoryMb: 256 }; }), changes: ["change service worker image,env,resources"] },
    { name: "a service's replicas and placement", desired: change((b) => { b.services[0]!.replicas = 3; b.services[0]!.placement = { zone: "a" }; }), changes: ["change service web replicas,placement"] },
    { name: "env in another key order is the same", desired: change((b) => { b.services[1]!.env = { B: "2", A: "1" }; }), over: { current: change((b) => (b.services[1]!.env = { A: "1", B: "2" })) }, changes: [] },
    { name: "a service moved to another app: refused", desired: change((b) => { b.apps.push({ name: "blog" }); b.services[1]!.app = "blog"; }), changes: ["create app blog", "change service worker app REFUSED"] },
    { name: "a database's schedule changes; its version cannot", desired: change((b) => { b.databases[0]!.backupSchedule = { cron: "0 3 * * *", keep: 7, target: "s3" }; }), changes: ["change database shop-db backupSchedule"] },
    { name: "a database's version: refused", desired: change((b) => { b.databases[0]!.version = "18"; delete b.databases[0]!.image; }), changes: ["change database shop-db version,image REFUSED"] },
    { name: "a database's placement: refused (its volume lives on its node)", desired: change((b) => { b.databases[0]!.placement = { disk: "ssd" }; }), changes: ["change database shop-db placement REFUSED"] },
    { name: "a database's placement given as none: no change", desired: change((b) => { b.databases[0]!.placement = {}; }), changes: [] },
    { name: "a secret given a value", desired: BASE, over: { secretKeys: ["API_KEY"] }, changes: ["change secret web/API_KEY value"] },
    { name: "objects left out, kept", desired: change((b) => { b.services = [b.services[0]!]; b.databases = []; }), changes: [], left: ["service worker", "database shop-db"] },
    { name: "objects left out, pruned", desired: change((b) => { b.services = []; b.databases = []; b.apps = []; }), over: { prune: true }, changes: ["delete service web", "delete service worker", "delete database shop-db", "delete app shop"] },
  ];

  it.each(table)("$name", ({ desired, over, changes, left }) => {
    const p = run(desired, over);
    expect(lines(p)).toEqual(changes);
    expect(p.left.map((l) => `${l.kind} ${l.name}`)).toEqual(left ?? []);
  });

  it("lists a secret the file names that the environment lacks, and never a value", () => {
    const p = run(change((b) => b.services[1]!.secrets.push("TOKEN")));
    expect(p.missingSecrets).toEqual([{ service: "worker", key: "TOKEN" }]);
    expect(planIsEmpty(p)).toBe(false);
    const given = run(change((b) => b.services[1]!.secrets.push("TOKEN")), { secretKeys: ["TOKEN"] });
    expect(given.changes).toEqual([{ action: "create", kind: "secret", name: "worker/TOKEN", fields: [{ field: "value" }], path: ["spec", "services", 1, "secrets", 0] }]);
  });

  it("a secret the environment has but the file leaves out is kept, or deleted with prune", () => {
    const without = change((b) => (b.services[0]!.secrets = []));
    expect(run(without).left.map((l) => l.name)).toEqual(["web/API_KEY"]);
    expect(lines(run(without, { prune: true }))).toEqual(["delete secret web/API_KEY"]);
  });

  it("reports drift: a running image that is not the declared one", () => {
    const p = run(BASE, { running: { web: "registry.example.com/shop:0.9", worker: "registry.example.com/shop:1.0" } });
    expect(p.changes).toEqual([]);
    expect(p.drift).toEqual([{ service: "web", declared: "registry.example.com/shop:1.0", running: "registry.example.com/shop:0.9" }]);
    expect(planIsEmpty(p)).toBe(false);
  });
});
