import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { count, eq } from "drizzle-orm";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { environment } from "@levelrail/db/schema/orgs";
import { app, release, service, serviceStatus } from "@levelrail/db/schema/services";
import type { ReleaseOutcome } from "@levelrail/spec/service";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { seedOrg, uniq } from "@levelrail/testkit/seed";
import { createDatabase } from "../database/write";
import { createApp } from "../app/app";
import { putTierEnv } from "../env/vars";
import { deployService, listReleases, restartService, rollbackService } from "../release/deploy";
import { getService, getStatus } from "./view";
import { createService, deleteService, patchService } from "./write";
import { refusal } from "@levelrail/testkit/refusal";

let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let a: Awaited<ReturnType<typeof seedOrg>>;
let b: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "services");
  ({ db, sql } = createDb(database.url));
  a = await seedOrg(db, "orga");
  b = await seedOrg(db, "orgb");
  await createApp({ ctx: a, envId: a.envId, input: { name: "shop" } });
  await createApp({ ctx: b, envId: b.envId, input: { name: "other" } });
  // What the services below attach (`databaseEnv` must name a database of their environment).
  await createDatabase({ ctx: a, envId: a.envId, input: { name: "shop-db" } });
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await database?.drop();
});

/** A fresh service of org A in app "shop", with a name no other test uses. */
async function newService(extra: Record<string, unknown> = {}) {
  const name = `web-${uniq()}`;
  await createService({ ctx: a, envId: a.envId, input: { name, app: "shop", image: "registry.example.com/shop:1.0", port: 8080, ...extra } });
  return name;
}

const rowCounts = async () => {
  const [s] = await db.select({ n: count() }).from(service);
  const [r] = await db.select({ n: count() }).from(release);
  const [p] = await db.select({ n: count() }).from(app);
  return { services: s?.n, releases: r?.n, apps: p?.n };
};

const serviceRow = async (name: string) => {
  const [row] = await db.select().from(service).where(eq(service.name, name));
  if (!row) throw new Error(`no service ${name}`);
  return row;
};

const releaseRow = async (id: string) => {
  const [row] = await db.select().from(release).where(eq(release.id, id));
  if (!row) throw new Error(`no release ${id}`);
  return row;
};

/** What the worker would record: the outcome of a release, set directly. */
const setOutcome = (id: string, outcome: ReleaseOutcome, imageId = `sha256:${id.replace(/-/g, "").padEnd(64, "0")}`) =>
  db.update(release).set({ outcome, imageId, finishedAt: new Date() }).where(eq(release.id, id));

describe("organizations are isolated", () => {
  it("a service of another organization answers not_found to every verb and is left unchanged", async () => {
    const name = await newService({ env: { A: "1" } });
    await deployService({ ctx: a, envId: a.envId, name, input: {} });
    const before = await serviceRow(name);
    const releasesBefore = await listReleases({ ctx: a, envId: a.envId, name });

    const verbs: [string, () => Promise<unknown>][] = [
      ["getService", () => getService({ ctx: b, envId: b.envId, name })],
      ["getStatus", () => getStatus({ ctx: b, envId: b.envId, name })],
      ["listReleases", () => listReleases({ ctx: b, envId: b.envId, name })],
      ["deployService", () => deployService({ ctx: b, envId: b.envId, name, input: { image: "evil:1" } })],
      ["restartService", () => restartService({ ctx: b, envId: b.envId, name })],
      ["rollbackService", () => rollbackService({ ctx: b, envId: b.envId, name })],
      ["patchService", () => patchService({ ctx: b, envId: b.envId, name, input: { port: 9999 } })],
      // Even an invalid patch answers 404 first: the caller learns nothing about the service.
      ["patchService (invalid)", () => patchService({ ctx: b, envId: b.envId, name, input: { port: 0 } })],
      ["deleteService", () => deleteService({ ctx: b, envId: b.envId, name })],
    ];
    for (const [verb, run] of verbs) {
      const err = await refusal(run);
      expect({ verb, code: err.code }).toEqual({ verb, code: "not_found" });
      expect(err.message).not.toContain(a.orgId);
    }

    expect(await serviceRow(name)).toEqual(before);
    expect(await listReleases({ ctx: a, envId: a.envId, name })).toEqual(releasesBefore);
    expect((await getService({ ctx: a, envId: a.envId, name })).port).toBe(8080);
  });

  it("an app of another organization is unknown to createService", async () => {
    const before = await rowCounts();
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `x-${uniq()}`, app: "other", image: "nginx:1", port: 80 } }));
    expect(err).toMatchObject({ code: "invalid_input", field: "app" });
    expect(await rowCounts()).toEqual(before);
  });

  it("an environment of another organization is refused, naming environmentId", async () => {
    const [envB] = await db.select({ id: environment.id }).from(environment).where(eq(environment.orgId, b.orgId));
    const before = await rowCounts();
    const err = await refusal(() =>
      createService({ ctx: a, envId: a.envId, input: { name: `x-${uniq()}`, app: "shop", environmentId: envB!.id, image: "nginx:1", port: 80 } }),
    );
    expect(err).toMatchObject({ code: "invalid_input", field: "environmentId" });
    expect(await rowCounts()).toEqual(before);
  });
});

describe("createService", () => {
  it.each([
    ["port 0", { port: 0 }, "port"],
    ["port as a string", { port: "80" }, "port"],
    ["an uppercase name", { name: "Web" }, "name"],
    ["an env key with a space", { env: { "BAD KEY": "x" } }, "env.BAD KEY"],
    ["an env value with NUL", { env: { OK: "a\0b" } }, "env.OK"],
    ["an unknown field", { scale: 3 }, "scale"],
    ["a bad strategy", { strategy: "rolling" }, "strategy"],
    ["an image with a space", { image: "nginx latest" }, "image"],
    ["an unknown app", { app: "nope" }, "app"],
    ["an unknown storage target", { storageTargetId: "00000000-0000-4000-8000-000000000001" }, "storageTargetId"],
    ["an unknown registry credential", { registryCredentialId: "00000000-0000-4000-8000-000000000002" }, "registryCredentialId"],
    ["a domain listed twice", { domains: ["shop.localhost", "SHOP.localhost"] }, "domains"],
  ])("refuses %s with invalid_input naming the field, and writes nothing", async (_what, extra, field) => {
    const before = await rowCounts();
    const input = { name: `ok-${uniq()}`, app: "shop", image: "nginx:1.27", port: 8080, ...extra };
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input }));
    expect(err.code).toBe("invalid_input");
    expect(err.field).toBe(field);
    expect(err.message.startsWith(`${field}: `)).toBe(true);
    expect(await rowCounts()).toEqual(before);
  });

  it("creates with the defaults and without a release", async () => {
    const name = await newService();
    const view = await getService({ ctx: a, envId: a.envId, name });
    expect(view).toMatchObject({ name, app: "shop", healthPath: "/", readyBudgetSeconds: 60, strategy: "blue-green", env: {}, domains: [] });
    expect(await listReleases({ ctx: a, envId: a.envId, name })).toEqual([]);
    expect((await getStatus({ ctx: a, envId: a.envId, name })).phase).toBe("stopped");
  });

  it("a duplicate name is a conflict naming the field, and writes nothing", async () => {
    const name = await newService();
    const before = await rowCounts();
    const err = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name, app: "shop", image: "nginx:2", port: 81 } }));
    expect(err).toMatchObject({ code: "conflict", field: "name" });
    expect(await rowCounts()).toEqual(before);
    expect((await getService({ ctx: a, envId: a.envId, name })).image).toBe("registry.example.com/shop:1.0");
  });
});

describe("domains", () => {
  it("a domain routed to another service is a conflict naming the field, and writes nothing; another organization's owner is not named", async () => {
    const domain = `d-${uniq()}.localhost`;
    const owner = `own-${uniq()}`;
    await createService({ ctx: a, envId: a.envId, input: { name: owner, app: "shop", image: "nginx:1.27", port: 8080, domains: [domain] } });
    const other = await newService();
    const before = await rowCounts();
    const mine = await refusal(() => createService({ ctx: a, envId: a.envId, input: { name: `two-${uniq()}`, app: "shop", image: "nginx:1.27", port: 8080, domains: [domain] } }));
    expect(mine).toMatchObject({ code: "conflict", field: "domains", message: `domains: ${domain} is already routed to service ${owner}` });
    const patched = await refusal(() => patchService({ ctx: a, envId: a.envId, name: other, input: { domains: ["free.localhost", domain] } }));
    expect(patched).toMatchObject({ code: "conflict", field: "domains" });
    expect(await rowCounts()).toEqual(before);
    // The owner may patch its own domains; the other organization is told only that it is taken.
    await patchService({ ctx: a, envId: a.envId, name: owner, input: { domains: [domain, `x-${domain}`] } });
    const foreign = await refusal(() => createService({ ctx: b, envId: b.envId, input: { name: `b-${uniq()}`, app: "other", image: "nginx:1.27", port: 8080, domains: [domain] } }));
    expect(foreign.message).toBe(`domains: ${domain} is already routed to another service`);
  });

  it("the panel's own host is refused as a domain (it would receive the operators' sessions), and nothing is written", async () => {
    const panel = { ...a, panelHost: "panel.example.com" };
    const before = await rowCounts();
    const made = await refusal(() => createService({ ctx: panel, envId: a.envId, input: { name: `p-${uniq()}`, app: "shop", image: "nginx:1", port: 80, domains: ["PANEL.example.com"] } }));
    expect(made).toMatchObject({ code: "invalid_input", field: "domains" });
    const other = await newService();
    const counted = await rowCounts();
    const patched = await refusal(() => patchService({ ctx: panel, envId: a.envId, name: other, input: { domains: ["panel.example.com"] } }));
    expect(patched).toMatchObject({ code: "invalid_input", field: "domains" });
    expect(counted.services).toBe((before.services ?? 0) + 1);
    expect((await getService({ ctx: a, envId: a.envId, name: other })).domains).toEqual([]);
  });
});

describe("patchService", () => {
  it("an invalid patch names the field and changes nothing", async () => {
    const name = await newService({ env: { KEEP: "1" }, databaseEnv: { DATABASE_URL: { from: "shop-db" } } });
    const before = await serviceRow(name);
    for (const [input, field] of [
      [{ port: 70000 }, "port"],
      [{ env: { "A=B": "x" } }, "env.A=B"],
      [{ name: "renamed" }, "name"],
    ] as const) {
      expect(await refusal(() => patchService({ ctx: a, envId: a.envId, name, input }))).toMatchObject({ code: "invalid_input", field });
    }
    expect(await serviceRow(name)).toEqual(before);
  });

  it("a patch changes only the fields it names", async () => {
    const name = await newService({ env: { KEEP: "1" }, databaseEnv: { DATABASE_URL: { from: "shop-db" } }, healthPath: "/healthz" });
    const view = await patchService({ ctx: a, envId: a.envId, name, input: { port: 9090 } });
    expect(view).toMatchObject({ port: 9090, env: { KEEP: "1" }, databaseEnv: { DATABASE_URL: { from: "shop-db" } }, healthPath: "/healthz" });
  });
});

describe("releases", () => {
  it("deploy records a pending release as the desired state", async () => {
    const name = await newService();
    const r = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(r).toMatchObject({ kind: "deploy", image: "registry.example.com/shop:1.0", outcome: "pending", imageId: null, createdBy: a.actor.email });
    expect((await serviceRow(name)).currentReleaseId).toBe(r.id);
    expect((await getStatus({ ctx: a, envId: a.envId, name })).phase).toBe("pending");
  });

  it("the status names the image that serves and, while a deploy runs, the one it is going to", async () => {
    const name = await newService();
    const id = (await serviceRow(name)).id;
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await setOutcome(r1.id, "succeeded");
    const v1 = "registry.example.com/shop:1.0";
    const v2 = "registry.example.com/shop:2.0";
    const status = { serviceId: id, activeContainer: `x-${name}-1`, message: "" };
    await db.insert(serviceStatus).values({ ...status, phase: "running", image: v1 });
    expect(await getStatus({ ctx: a, envId: a.envId, name })).toMatchObject({ servingImage: v1, targetImage: null });

    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: { image: v2 } });
    expect(await getStatus({ ctx: a, envId: a.envId, name })).toMatchObject({ phase: "pending", servingImage: v1, targetImage: v2 });
    // The worker reports the release it works on; the old container still serves v1 until the cutover.
    await db.update(release).set({ outcome: "deploying", startedAt: new Date() }).where(eq(release.id, r2.id));
    await db.update(serviceStatus).set({ phase: "deploying", step: "probing", image: v2 }).where(eq(serviceStatus.serviceId, id));
    expect(await getStatus({ ctx: a, envId: a.envId, name })).toMatchObject({ phase: "deploying", image: v2, servingImage: v1, targetImage: v2 });
    await db.update(serviceStatus).set({ phase: "failed", step: null }).where(eq(serviceStatus.serviceId, id));
    expect(await getStatus({ ctx: a, envId: a.envId, name })).toMatchObject({ servingImage: v1, targetImage: null });
    await db.update(serviceStatus).set({ phase: "deploying", step: "cutover", activeContainer: `x-${name}-2` }).where(eq(serviceStatus.serviceId, id));
    expect(await getStatus({ ctx: a, envId: a.envId, name })).toMatchObject({ servingImage: v2, targetImage: v2 });
  });

  it("a deploy supersedes an unfinished earlier release but not a finished one", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await setOutcome(r1.id, "succeeded");
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:2.0" } });
    await db.update(release).set({ outcome: "deploying", startedAt: new Date() }).where(eq(release.id, r2.id));
    const r3 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:3.0" } });
    const r4 = await deployService({ ctx: a, envId: a.envId, name, input: {} });

    expect((await releaseRow(r1.id)).outcome).toBe("succeeded");
    const superseded = await releaseRow(r2.id);
    expect(superseded.outcome).toBe("superseded");
    expect(superseded.finishedAt).not.toBeNull();
    expect(superseded.message).toMatch(/superseded/);
    expect((await releaseRow(r3.id)).outcome).toBe("superseded");
    expect((await releaseRow(r4.id)).outcome).toBe("pending");
    expect((await serviceRow(name)).currentReleaseId).toBe(r4.id);
    // At most one release of a service is ever unfinished.
    const unfinished = (await listReleases({ ctx: a, envId: a.envId, name })).filter((r) => r.outcome === "pending" || r.outcome === "deploying");
    expect(unfinished.map((r) => r.id)).toEqual([r4.id]);
  });

  it("deploy with a new image updates the service's image", async () => {
    const name = await newService();
    const r = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:9.9" } });
    expect(r.image).toBe("registry.example.com/shop:9.9");
    expect((await getService({ ctx: a, envId: a.envId, name })).image).toBe("registry.example.com/shop:9.9");
  });

  it("a deploy with an invalid image is refused naming the field and records nothing", async () => {
    const name = await newService();
    const before = await rowCounts();
    expect(await refusal(() => deployService({ ctx: a, envId: a.envId, name, input: { image: "nginx;id" } }))).toMatchObject({ code: "invalid_input", field: "image" });
    expect(await rowCounts()).toEqual(before);
    expect((await serviceRow(name)).image).toBe("registry.example.com/shop:1.0");
  });

  it("restart before any deploy is a conflict and records nothing", async () => {
    const name = await newService();
    const before = await rowCounts();
    expect((await refusal(() => restartService({ ctx: a, envId: a.envId, name }))).code).toBe("conflict");
    expect(await rowCounts()).toEqual(before);
  });

  it("restart gives the running release's spec and image id a new nonce", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await setOutcome(r1.id, "succeeded", "sha256:aaaa");
    const built = new Date("2026-10-01T12:00:00Z");
    await db.update(release).set({ imageCreatedAt: built }).where(eq(release.id, r1.id));
    const r2 = await restartService({ ctx: a, envId: a.envId, name });
    expect(r2).toMatchObject({ kind: "restart", image: r1.image, imageId: "sha256:aaaa", outcome: "pending" });
    // The image's build time comes with its id (lead time starts there).
    expect((await releaseRow(r2.id)).imageCreatedAt).toEqual(built);
    const [n1, n2] = [(await releaseRow(r1.id)).restartNonce, (await releaseRow(r2.id)).restartNonce];
    expect(n2).not.toBe(n1);
    expect(n2).not.toBe("");
    expect((await serviceRow(name)).restartNonce).toBe(n2);
  });

  it("rollback picks the previous succeeded release, skipping failed ones and the current one", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:1.0" } });
    await setOutcome(r1.id, "succeeded", "sha256:v1");
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:2.0" } });
    await setOutcome(r2.id, "succeeded", "sha256:v2");
    await db.update(release).set({ imageCreatedAt: new Date("2026-10-02T00:00:00Z") }).where(eq(release.id, r2.id));
    const r3 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:3.0" } });
    await setOutcome(r3.id, "failed", "sha256:v3");

    // The current release (v3) failed: the previous success is v2.
    const back = await rollbackService({ ctx: a, envId: a.envId, name });
    expect(back).toMatchObject({ kind: "rollback", image: "registry.example.com/shop:2.0", imageId: "sha256:v2", outcome: "pending" });
    expect((await releaseRow(back.id)).spec).toEqual((await releaseRow(r2.id)).spec);
    expect((await releaseRow(back.id)).restartNonce).toBe((await releaseRow(r2.id)).restartNonce);
    expect((await releaseRow(back.id)).imageCreatedAt).toEqual(new Date("2026-10-02T00:00:00Z"));

  });

  it("rollback from the current success goes to the one before it", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:1.0" } });
    await setOutcome(r1.id, "succeeded", "sha256:v1");
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:2.0" } });
    await setOutcome(r2.id, "succeeded", "sha256:v2");
    const back = await rollbackService({ ctx: a, envId: a.envId, name });
    expect(back).toMatchObject({ image: "registry.example.com/shop:1.0", imageId: "sha256:v1" });
  });

  it("rollback without an earlier success is a conflict and records nothing", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await setOutcome(r1.id, "succeeded");
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:2.0" } });
    await setOutcome(r2.id, "failed");
    await db.update(release).set({ outcome: "failed" }).where(eq(release.id, r1.id));
    const before = await rowCounts();
    expect((await refusal(() => rollbackService({ ctx: a, envId: a.envId, name }))).code).toBe("conflict");
    expect(await rowCounts()).toEqual(before);
  });

  it("an unchanged configuration keeps the restart nonce; a config change (env) gives a new one", async () => {
    const name = await newService({ env: { A: "1" } });
    const nonceOf = async (id: string) => (await releaseRow(id)).restartNonce;

    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r1.id)).toBe("");
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r2.id)).toBe("");
    // The image names the container by itself: a new image alone keeps the nonce.
    const r3 = await deployService({ ctx: a, envId: a.envId, name, input: { image: "registry.example.com/shop:2.0" } });
    expect(await nonceOf(r3.id)).toBe("");

    await patchService({ ctx: a, envId: a.envId, name, input: { env: { A: "2" } } });
    const r4 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    const n4 = await nonceOf(r4.id);
    expect(n4).not.toBe("");
    const r5 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r5.id)).toBe(n4);

    // A new key, and other spec fields, count as configuration too.
    await patchService({ ctx: a, envId: a.envId, name, input: { env: { A: "2", B: "x" } } });
    const r6 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r6.id)).not.toBe(n4);
    await patchService({ ctx: a, envId: a.envId, name, input: { hooks: { preDeploy: ["migrate"] } } });
    const r7 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect(await nonceOf(r7.id)).not.toBe(await nonceOf(r6.id));
  });

  it("a change in an inherited env tier gives a new nonce too", async () => {
    const name = await newService();
    const r1 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await putTierEnv({ ctx: a, tier: "organization", id: a.orgId, input: { vars: { REGION: "eu" } } });
    const r2 = await deployService({ ctx: a, envId: a.envId, name, input: {} });
    expect((await releaseRow(r2.id)).restartNonce).not.toBe((await releaseRow(r1.id)).restartNonce);
    await putTierEnv({ ctx: a, tier: "organization", id: a.orgId, input: { vars: {} } });
  });

  it("listReleases answers newest first", async () => {
    const name = await newService();
    const ids: string[] = [];
    for (const image of ["registry.example.com/shop:1", "registry.example.com/shop:2", "registry.example.com/shop:3"]) {
      ids.push((await deployService({ ctx: a, envId: a.envId, name, input: { image } })).id);
    }
    await setOutcome(ids[2]!, "succeeded");
    ids.push((await restartService({ ctx: a, envId: a.envId, name })).id);
    const list = await listReleases({ ctx: a, envId: a.envId, name });
    expect(list.map((r) => r.id)).toEqual([...ids].reverse());
    expect(list.map((r) => r.kind)).toEqual(["restart", "deploy", "deploy", "deploy"]);
    expect(list.map((r) => r.image)).toEqual(["registry.example.com/shop:3", "registry.example.com/shop:3", "registry.example.com/shop:2", "registry.example.com/shop:1"]);
  });
});

describe("deleteService", () => {
  it("deletes the service and its releases", async () => {
    const name = await newService();
    await deployService({ ctx: a, envId: a.envId, name, input: {} });
    await deleteService({ ctx: a, envId: a.envId, name });
    expect((await refusal(() => getService({ ctx: a, envId: a.envId, name }))).code).toBe("not_found");
    expect((await refusal(() => deleteService({ ctx: a, envId: a.envId, name }))).code).toBe("not_found");
  });
});
