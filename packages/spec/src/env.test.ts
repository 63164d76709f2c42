import { describe, expect, it } from "vitest";
import {
  type EnvStores,
  type EnvTarget,
  UnresolvableError,
  canonicalJson,
  changedKeys,
  configFingerprint,
  envFingerprints,
  resolveEnv,
  storageEnv,
} from "./env";
import { STORAGE_ENV_KEYS } from "./storage";

const target = (over: Partial<EnvTarget> = {}): EnvTarget => ({
  serviceId: "svc",
  orgId: "org",
  projectId: "proj",
  environmentId: "env",
  env: { K: "service", S: "service" },
  secretKeys: [],
  storageTargetId: null,
  databaseEnv: {},
  ...over,
});
const tier = (vars: Record<string, string>) => ({ envOf: async () => vars });
const allStores = (): EnvStores => ({
  organizationEnv: tier({ K: "org", O: "org", P: "org", E: "org" }),
  projectEnv: tier({ K: "project", P: "project", E: "project" }),
  environmentEnv: tier({ K: "environment", E: "environment" }),
  secrets: { secretsOf: async () => ({ K: "secret", S: "secret" }) },
  storage: { storageTarget: async () => ({ endpoint: "http://s3", bucket: "b", region: "r", accessKey: "a", secretKey: "sk" }) },
  databases: { databaseUrl: async (_org, name) => (name === "db" ? "postgres://db" : null) },
});

describe("resolveEnv", () => {
  it("applies every tier in precedence order and records what each key overrides", async () => {
    const entries = await resolveEnv(
      target({ secretKeys: ["K", "S"], storageTargetId: "t", databaseEnv: { K: { from: "db" }, DATABASE_URL: { from: "db" } } }),
      allStores(),
    );
    const by = Object.fromEntries(entries.map((e) => [e.key, e]));
    expect(by.O).toMatchObject({ value: "org", source: "organization", overrides: [], sensitive: false });
    expect(by.P).toMatchObject({ value: "project", source: "project", overrides: ["organization"] });
    expect(by.E).toMatchObject({ value: "environment", source: "environment", overrides: ["organization", "project"] });
    expect(by.S).toMatchObject({ value: "secret", source: "secret", overrides: ["service"], sensitive: true });
    expect(by.K).toMatchObject({
      value: "postgres://db",
      source: "database",
      overrides: ["organization", "project", "environment", "service", "secret"],
      sensitive: true,
    });
    expect(by.S3_SECRET_KEY).toMatchObject({ value: "sk", source: "storage", sensitive: true });
    expect(by.S3_ACCESS_KEY).toMatchObject({ value: "a", source: "storage", sensitive: true });
    expect(by.S3_BUCKET).toMatchObject({ value: "b", source: "storage", sensitive: false });
    expect(entries.map((e) => e.key)).toEqual([...entries.map((e) => e.key)].sort());
  });

  it("skips organization, project and environment tiers that have no store", async () => {
    const entries = await resolveEnv(target(), {});
    expect(entries.map((e) => [e.key, e.value, e.source])).toEqual([
      ["K", "service", "service"],
      ["S", "service", "service"],
    ]);
  });

  it.each([
    ["secrets with no store", target({ secretKeys: ["API_KEY"] }), {}, /secrets API_KEY are declared/],
    ["a secret the store cannot resolve", target({ secretKeys: ["API_KEY"] }), { secrets: { secretsOf: async () => ({}) } }, /secret API_KEY could not be resolved/],
    ["storage with no store", target({ storageTargetId: "t1" }), {}, /storage target t1 is attached but no storage store/],
    ["a storage target that does not exist", target({ storageTargetId: "t1" }), { storage: { storageTarget: async () => null } }, /storage target t1 does not exist/],
    ["a database attachment with no store", target({ databaseEnv: { DB: { from: "main" } } }), {}, /DB \(from main\)/],
    ["a database that does not exist", target({ databaseEnv: { DB: { from: "main" } } }), { databases: { databaseUrl: async () => null } }, /database main \(for DB\) does not exist/],
  ] as [string, EnvTarget, EnvStores, RegExp][])("fails loudly on %s", async (_what, t, stores, message) => {
    const err = await resolveEnv(t, stores).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnresolvableError);
    expect((err as Error).message).toMatch(message);
  });

  it("storage env uses exactly the advertised keys", () => {
    const env = storageEnv({ endpoint: "e", bucket: "b", region: "r", accessKey: "a", secretKey: "s" });
    expect(Object.keys(env).sort()).toEqual([...STORAGE_ENV_KEYS].sort());
  });
});

describe("fingerprints", () => {
  const key = Buffer.alloc(32, 1);
  const entries = async (vars: Record<string, string>) => resolveEnv(target({ env: vars }), {});

  it("change when and only when the resolved configuration changes", async () => {
    const spec = { port: 8080, hooks: { preDeploy: null, postDeploy: null, timeoutSeconds: 300 } };
    const a = envFingerprints(key, await entries({ A: "1", B: "2" }));
    const same = envFingerprints(key, await entries({ B: "2", A: "1" }));
    expect(configFingerprint(key, spec, a)).toBe(configFingerprint(key, { hooks: { timeoutSeconds: 300, postDeploy: null, preDeploy: null }, port: 8080 }, same));
    const changedValue = envFingerprints(key, await entries({ A: "1", B: "3" }));
    expect(configFingerprint(key, spec, changedValue)).not.toBe(configFingerprint(key, spec, a));
    expect(configFingerprint(key, { ...spec, port: 8081 }, a)).not.toBe(configFingerprint(key, spec, a));
    expect(changedKeys(a, changedValue)).toEqual(["B"]);
    expect(changedKeys(a, envFingerprints(key, await entries({ A: "1" })))).toEqual(["B"]);
    expect(changedKeys(a, envFingerprints(key, await entries({ A: "1", B: "2", C: "" })))).toEqual(["C"]);
  });

  it("hold no value in plaintext and depend on the key", async () => {
    const prints = envFingerprints(key, await entries({ PASSWORD: "hunter2-very-secret" }));
    expect(JSON.stringify(prints)).not.toContain("hunter2");
    expect(envFingerprints(Buffer.alloc(32, 2), await entries({ PASSWORD: "hunter2-very-secret" }))).not.toEqual(prints);
  });

  it("canonical JSON ignores key order at every level", () => {
    expect(canonicalJson({ b: { y: 1, x: [2, { d: 1, c: 2 }] }, a: null })).toBe('{"a":null,"b":{"x":[2,{"c":2,"d":1}],"y":1}}');
  });
});
