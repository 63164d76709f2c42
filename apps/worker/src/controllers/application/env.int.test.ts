import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { secret } from "@levelrail/db/schema/config";
import { Keyring, deriveKey, rotateKeyFile, seal } from "@levelrail/secrets";
import { createApp } from "@levelrail/services/app/app";
import { createBackupTarget } from "@levelrail/services/config/backup-targets";
import { createRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { configDrift, effectiveEnv } from "@levelrail/services/env/effective";
import { resealAll } from "@levelrail/services/env/rotate";
import { putSecret } from "@levelrail/services/env/secrets";
import { putTierEnv } from "@levelrail/services/env/vars";
import { listProjects, listEnvironments } from "@levelrail/services/project/list";
import { deployService, listReleases } from "@levelrail/services/release/deploy";
import { getService } from "@levelrail/services/service/view";
import { createService, patchService } from "@levelrail/services/service/write";
import { getStatus } from "@levelrail/services/service/view";
import { startRegistry } from "@levelrail/testkit/registry";
import { IMAGES, setupSuite } from "../../../test/harness";

let s: Awaited<ReturnType<typeof setupSuite>>;
const SECRET_VALUE = `s3cr3t-${Math.random().toString(36).slice(2)}-value`;
const STORAGE_SECRET = `storage-${Math.random().toString(36).slice(2)}-key`;

beforeAll(async () => {
  s = await setupSuite("env");
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  await s.startWorker();
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

const svc = (name: string, extra: Record<string, unknown> = {}) =>
  createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", ...extra } });

async function containerEnv(name: string): Promise<Record<string, string>> {
  const [c] = await s.containers(name);
  const env = (await s.runtime.docker.getContainer(c!.id).inspect()).Config.Env ?? [];
  return Object.fromEntries(env.map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]));
}

describe("environment resolution on the real engine", () => {
  it("the container's env equals the effective env, tier by tier", async () => {
    const [project] = await listProjects({ ctx: s.ctx });
    const [environment] = await listEnvironments({ ctx: s.ctx, projectId: project!.id });
    await putTierEnv({ ctx: s.ctx, tier: "organization", id: s.ctx.orgId, input: { vars: { A: "org", B: "org", C: "org", D: "org", LOG: "org" } } });
    await putTierEnv({ ctx: s.ctx, tier: "project", id: project!.id, input: { vars: { B: "project", C: "project", D: "project" } } });
    await putTierEnv({ ctx: s.ctx, tier: "environment", id: environment!.id, input: { vars: { C: "environment", D: "environment" } } });
    const target = await createBackupTarget({
      ctx: s.ctx,
      input: { name: "minio", endpoint: "http://127.0.0.1:9000", bucket: "shop", region: "us-east-1", accessKey: "AK", secretKey: STORAGE_SECRET },
    });
    const name = `tiers-${s.shortName}`;
    await svc(name, { env: { D: "service", TOKEN: "plain", S3_BUCKET: "overridden-by-storage" }, storageTargetId: target.id });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name, key: "TOKEN", input: { value: SECRET_VALUE } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");

    const env = await containerEnv(name);
    expect(env).toMatchObject({
      A: "org",
      B: "project",
      C: "environment",
      D: "service",
      TOKEN: SECRET_VALUE,
      S3_ENDPOINT: "http://127.0.0.1:9000",
      S3_BUCKET: "shop",
      S3_REGION: "us-east-1",
      S3_ACCESS_KEY: "AK",
      S3_SECRET_KEY: STORAGE_SECRET,
    });
    const effective = await effectiveEnv({ ctx: s.ctx, envId: s.ctx.envId, name });
    // The engine adds PATH to every container; everything else comes from us.
    expect(Object.keys(env).filter((k) => k !== "PATH").sort().join(" ")).toBe(effective.map((e) => e.key).sort().join(" "));
    const byKey = Object.fromEntries(effective.map((e) => [e.key, e]));
    expect(byKey.C).toMatchObject({ source: "environment", value: "environment", overrides: ["organization", "project"] });
    expect(byKey.TOKEN).toMatchObject({ source: "secret", value: null, overrides: ["service"] });
    expect(byKey.S3_SECRET_KEY).toMatchObject({ source: "storage", value: null });
    expect(byKey.S3_BUCKET).toMatchObject({ source: "storage", value: "shop", overrides: ["service"] });
    for (const e of effective) if (e.value !== null) expect(e.value).toBe(env[e.key]);

    // A tier change restarts nothing, and is reported by key name.
    expect((await configDrift({ ctx: s.ctx, envId: s.ctx.envId, name })).changedKeys).toEqual([]);
    await putTierEnv({ ctx: s.ctx, tier: "project", id: project!.id, input: { vars: { B: "project2", C: "project", D: "project" } } });
    await putSecret({ ctx: s.ctx, envId: s.ctx.envId, name, key: "TOKEN", input: { value: `${SECRET_VALUE}-2` } });
    const drift = await configDrift({ ctx: s.ctx, envId: s.ctx.envId, name });
    expect(drift.changedKeys).toEqual(["B", "TOKEN"]);
    expect(JSON.stringify(drift)).not.toContain(SECRET_VALUE);
    const [before] = await s.containers(name);
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    await s.waitPhase(name, ["running"]);
    const [after] = await s.containers(name);
    expect(after!.id).not.toBe(before!.id); // same image, new configuration: a new container
    expect((await containerEnv(name)).B).toBe("project2");
    expect((await configDrift({ ctx: s.ctx, envId: s.ctx.envId, name })).changedKeys).toEqual([]);
    await putTierEnv({ ctx: s.ctx, tier: "organization", id: s.ctx.orgId, input: { vars: {} } });
    await putTierEnv({ ctx: s.ctx, tier: "project", id: project!.id, input: { vars: {} } });
    await putTierEnv({ ctx: s.ctx, tier: "environment", id: environment!.id, input: { vars: {} } });
  });

  it("a secret the worker cannot decrypt fails the deploy naming it, and starts nothing", async () => {
    const name = `badsecret-${s.shortName}`;
    const created = await svc(name);
    const otherKey = deriveKey(Buffer.alloc(32, 7), "other");
    await s.db.insert(secret).values({ orgId: s.ctx.orgId, serviceId: created.id, key: "API_KEY", sealed: seal(otherKey, "whatever") });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    const st = await s.waitPhase(name, ["failed"]);
    expect(st.message).toContain("API_KEY");
    expect(await s.containers(name)).toHaveLength(0);
    await s.db.delete(secret).where(eq(secret.serviceId, created.id));
  });

  it("a storage target or registry credential that does not exist fails the deploy, and starts nothing", async () => {
    const name = `badrefs-${s.shortName}`;
    const created = await svc(name);
    const missing = "00000000-0000-4000-8000-000000000001";
    // Bypass the API's checks, as a concurrent delete would.
    const { service } = await import("@levelrail/db/schema/services");
    await s.db.update(service).set({ storageTargetId: missing }).where(eq(service.id, created.id));
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
    expect((await s.waitPhase(name, ["failed"])).message).toContain(`storage target ${missing} does not exist`);
    await s.db.update(service).set({ storageTargetId: null, registryCredentialId: missing }).where(eq(service.id, created.id));
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image: "127.0.0.1:1/private/none:v1" } });
    expect((await s.waitPhase(name, ["failed"])).message).toContain(`registry credential ${missing} does not exist`);
    expect(await s.containers(name)).toHaveLength(0);
  });

  it("pulls a private image through a real registry with the credential, and fails without it", async () => {
    const registry = await startRegistry();
    try {
      const ref = `${registry.server}/private/web:v1`;
      const auth = { username: registry.username, password: registry.password, serveraddress: registry.server };
      const img = s.runtime.docker.getImage(IMAGES.v1.tag);
      await img.tag({ repo: `${registry.server}/private/web`, tag: "v1" });
      const push = await s.runtime.docker.getImage(ref).push({ authconfig: auth });
      await new Promise<void>((resolve, reject) =>
        s.runtime.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) =>
          err || out.some((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)?.error)) : resolve(),
        ),
      );
      await s.runtime.docker.getImage(ref).remove(); // untag: the deploy has to pull it

      const without = `nocred-${s.shortName}`;
      await svc(without, { image: ref });
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: without, input: {} });
      const failed = await s.waitPhase(without, ["failed"]);
      expect(failed.message).toMatch(/could not be pulled/);
      expect(failed.message).toMatch(/auth|credentials|unauthorized/i);
      expect(await s.containers(without)).toHaveLength(0);

      const cred = await createRegistryCredential({ ctx: s.ctx, input: { name: "local", server: registry.server, username: registry.username, password: registry.password } });
      expect(JSON.stringify(cred)).not.toContain(registry.password);
      const withCred = `withcred-${s.shortName}`;
      await svc(withCred, { image: ref, registryCredentialId: cred.id });
      await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: withCred, input: {} });
      expect((await s.waitPhase(withCred, ["running", "failed"])).phase).toBe("running");
      await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: withCred, input: { registryCredentialId: null } });
      expect((await getService({ ctx: s.ctx, envId: s.ctx.envId, name: withCred })).registryCredentialId).toBeNull();
    } finally {
      await registry.stop();
    }
  });

  it("key rotation keeps every secret readable by the worker", async () => {
    // File mode, starting from the suite's key: every value in the database was sealed with it.
    const dataDir = mkdtempSync(join(tmpdir(), "lr-rotate-"));
    writeFileSync(join(dataDir, "master.key"), `${s.kit.masterKey}\n`, { mode: 0o600 });
    const fileRing = new Keyring({ envKey: undefined, dataDir });
    const name = `rotate-${s.shortName}`;
    await svc(name);
    const ctx = { ...s.ctx, kit: { keyring: fileRing, fingerprintKey: s.kit.fingerprintKey } };
    await putSecret({ ctx, envId: ctx.envId, name, key: "ROTATED", input: { value: SECRET_VALUE } });
    const before = fileRing.currentVersion;

    rotateKeyFile(dataDir);
    const rotated = new Keyring({ envKey: undefined, dataDir });
    expect(rotated.currentVersion).not.toBe(before);
    const { resealed } = await resealAll(s.db, rotated);
    expect(resealed).toBeGreaterThanOrEqual(1);
    const [row] = await s.db.select().from(secret).where(eq(secret.key, "ROTATED"));
    expect(Keyring.versionOf(row!.sealed)).toBe(rotated.currentVersion);
    // The old keyring object reloads the files when it meets the new version.
    expect(fileRing.open(row!.sealed)).toBe(SECRET_VALUE);

    // A worker on the rotated keyring deploys with the secret.
    await s.stopWorker();
    await s.startWorker({ keyring: rotated });
    try {
      await deployService({ ctx, envId: ctx.envId, name, input: {} });
      expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");
      expect((await containerEnv(name)).ROTATED).toBe(SECRET_VALUE);
    } finally {
      await s.stopWorker();
      await s.startWorker();
    }
  });

  it("no log line, API response or database column holds a secret in plaintext", async () => {
    const services = [`tiers-${s.shortName}`, `rotate-${s.shortName}`];
    const responses: unknown[] = [];
    for (const name of services) {
      responses.push(
        await getService({ ctx: s.ctx, envId: s.ctx.envId, name }),
        await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name }),
        await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name }),
        await effectiveEnv({ ctx: s.ctx, envId: s.ctx.envId, name }),
        await configDrift({ ctx: s.ctx, envId: s.ctx.envId, name }),
      );
    }
    const haystacks = [JSON.stringify(responses), s.logs.join("\n")];
    const tables = await s.sql<{ tablename: string }[]>`select tablename from pg_tables where schemaname = 'public'`;
    for (const { tablename } of tables) {
      const rows = await s.sql.unsafe(`select * from "${tablename}"`);
      haystacks.push(JSON.stringify(rows));
    }
    for (const h of haystacks) {
      expect(h.includes(SECRET_VALUE)).toBe(false);
      expect(h.includes(STORAGE_SECRET)).toBe(false);
    }
  });
});
