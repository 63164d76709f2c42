import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { release, service } from "@levelrail/db/schema/services";
import { DEFAULT_RESOURCES } from "@levelrail/spec/service";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg, uniq } from "@levelrail/testkit/seed";
import { createApp } from "../app/app";
import { configDrift } from "../env/effective";
import { deployService } from "../release/deploy";
import { getService } from "./view";
import { createService, patchService } from "./write";
import { refusal } from "@levelrail/testkit/refusal";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "resources");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "limits");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

async function newService(extra: Record<string, unknown> = {}) {
  const name = `web-${uniq()}`;
  await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", image: "registry.example.com/shop:1.0", port: 8080, ...extra } });
  return name;
}

const serviceRow = async (name: string) => {
  const [row] = await db.select().from(service).where(eq(service.name, name));
  if (!row) throw new Error(`no service ${name}`);
  return row;
};
const releaseRow = async (id: string) => (await db.select().from(release).where(eq(release.id, id)))[0]!;
const nonceOf = async (id: string) => (await releaseRow(id)).restartNonce;
const drift = (name: string) => configDrift({ ctx: a, envId: a.envId, name });

const BAD: [string, unknown, string][] = [
  ["memory below 16 MiB", { memoryMb: 8 }, "resources.memoryMb"],
  ["fractional memory", { memoryMb: 64.5 }, "resources.memoryMb"],
  ["memory as a string", { memoryMb: "512" }, "resources.memoryMb"],
  ["zero CPUs", { cpus: 0 }, "resources.cpus"],
  ["too few processes", { pids: 4 }, "resources.pids"],
  ["an unlimited process count", { pids: null }, "resources.pids"],
  ["a capability outside Docker's default set", { capAdd: ["SYS_ADMIN"] }, "resources.capAdd.0"],
  ["a capability listed twice", { capAdd: ["KILL", "KILL"] }, "resources.capAdd"],
  ["an unknown field", { swapMb: 10 }, "resources.swapMb"],
];

describe("resources", () => {
  it("a service made without resources has every default", async () => {
    const name = await newService();
    expect((await getService({ ctx: a, envId: a.envId, name })).resources).toEqual(DEFAULT_RESOURCES);
    expect(DEFAULT_RESOURCES).toEqual({ memoryMb: null, cpus: null, pids: 4096, capAdd: [] });
  });

  it.each(BAD)("create refuses %s with invalid_input naming the field, and writes nothing", async (_what, resources, field) => {
    const name = `bad-${uniq()}`;
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name, app: "shop", image: "nginx:1.27", port: 80, resources } }));
    expect(err).toMatchObject({ code: "invalid_input", field });
    expect(err.message.startsWith(`${field}: `)).toBe(true);
    expect(await db.select().from(service).where(eq(service.name, name))).toEqual([]);
  });

  it.each(BAD)("patch refuses %s naming the field, and changes nothing", async (_what, resources, field) => {
    const name = await newService({ resources: { memoryMb: 256 } });
    const before = await serviceRow(name);
    const err = await refusal(() => patchService({ ctx: a, envId: a.envId, name, input: { resources } }));
    expect(err).toMatchObject({ code: "invalid_input", field });
    expect(await serviceRow(name)).toEqual(before);
  });

  it("create stores what it is given, defaults filled", async () => {
    const name = await newService({ resources: { memoryMb: 512, cpus: 1.5, capAdd: ["NET_BIND_SERVICE"] } });
    expect((await getService({ ctx: a, envId: a.envId, name })).resources).toEqual({ memoryMb: 512, cpus: 1.5, pids: 4096, capAdd: ["NET_BIND_SERVICE"] });
  });

  it("a patch's resources replace the whole object (what it leaves out is the default again); other fields stay", async () => {
    const name = await newService({ resources: { memoryMb: 512, cpus: 2, pids: 200 }, healthPath: "/healthz" });
    const view = await patchService({ ctx: a, envId: a.envId, name, input: { resources: { pids: 100 } } });
    expect(view.resources).toEqual({ memoryMb: null, cpus: null, pids: 100, capAdd: [] });
    expect(view.healthPath).toBe("/healthz");
    // A patch without resources leaves them alone.
    expect((await patchService({ ctx: a, envId: a.envId, name, input: { port: 9090 } })).resources.pids).toBe(100);
    expect((await serviceRow(name)).resources).toEqual({ memoryMb: null, cpus: null, pids: 100, capAdd: [] });
  });

  it("drift names resources when they changed since the last deploy, and a deploy of the change replaces the container (new nonce)", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await drift(name)).toMatchObject({ deployed: true, changedFields: [] });

    await patchService({ ctx: a, envId: a.envId, name, input: { resources: { memoryMb: 128 } } });
    expect((await drift(name)).changedFields).toEqual(["resources"]);
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect((await releaseRow(r2.id)).spec.resources).toEqual({ memoryMb: 128, cpus: null, pids: 4096, capAdd: [] });
    const n2 = await nonceOf(r2.id);
    expect(n2).not.toBe(await nonceOf(r1.id));
    expect((await drift(name)).changedFields).toEqual([]);

    // Back to every default: the draft leaves resources out, the release has them; still drift.
    await patchService({ ctx: a, envId: a.envId, name, input: { resources: {} } });
    expect((await drift(name)).changedFields).toEqual(["resources"]);
    const r3 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect((await releaseRow(r3.id)).spec.resources).toBeUndefined();
    expect(await nonceOf(r3.id)).not.toBe(n2);
    expect((await drift(name)).changedFields).toEqual([]);
  });

  it("a default-resources service fingerprints as before limits existed: redeploying it keeps the nonce", async () => {
    const name = await newService({ resources: DEFAULT_RESOURCES });
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect((await releaseRow(r1.id)).spec.resources).toBeUndefined();
    await patchService({ ctx: a, envId: a.envId, name, input: { resources: { pids: 4096 } } });
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r2.id)).toBe(await nonceOf(r1.id));
  });
});
