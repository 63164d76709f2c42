import { randomBytes, randomUUID } from "node:crypto";
import { and, count, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { envVar, secret } from "@levelrail/db/schema/config";
import { environment } from "@levelrail/db/schema/orgs";
import { app, release, service } from "@levelrail/db/schema/services";
import type { Ctx } from "@levelrail/services/context";
import { createApp, getApp, listApps } from "@levelrail/services/app/app";
import { effectiveEnv } from "@levelrail/services/env/effective";
import { listSecrets, putSecret } from "@levelrail/services/env/secrets";
import { getTierEnv, putTierEnv } from "@levelrail/services/env/vars";
import { createProject } from "@levelrail/services/project/create";
import { createEnvironment, deleteEnvironment } from "@levelrail/services/project/environment";
import { deployService, listReleases, promoteService } from "@levelrail/services/release/deploy";
import { getService, getStatus, listServices } from "@levelrail/services/service/view";
import { createService, patchService } from "@levelrail/services/service/write";
import { meshName, networkName, serviceFilter } from "@levelrail/spec/naming";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startLoad } from "@levelrail/testkit/load";
import { getByHost } from "@levelrail/testkit/http";
import { freePort } from "@levelrail/testkit/registry";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../test/harness";
import { resolved, runInside, wgetArgv } from "../test/inside";
import { refusalBody as refusal } from "@levelrail/testkit/refusal";

/**
 * Issue 10's operator stories against the real engine, PostgreSQL, Caddy, worker and data plane:
 * `shop/web` in production and staging (and in a second organization), served at once by their own
 * domains with mesh names that never cross; promote by exact image id after the tag moved; clone;
 * delete an environment.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let caddy: TestCaddy;
let ingressPort: number;

/** Where a service lives: who asks, and in which environment. */
interface Place {
  ctx: Ctx;
  envId: string;
  label: string;
}
let production: Place;
let staging: Place;
let other: Place & { cleanup(): Promise<void> };

/** Organization B's image: a third body, so every domain answers something only it serves. */
const V3 = { tag: "levelrail-test/web:v3", body: "v3\n", healthy: true } as const;
/** A tag of this suite's own that the promote story moves from v1's image to v2's. */
let movingTag: string;
let imageIds: { v1: string; v2: string; v3: string };
const domains = { production: "", staging: "", other: "" };

const SECRET_VALUE = `s3cr3t-${randomBytes(12).toString("hex")}`;

beforeAll(async () => {
  s = await setupSuite("environments");
  caddy = await startCaddy();
  ingressPort = await freePort();
  imageIds = {
    v1: (await s.runtime.docker.getImage(IMAGES.v1.tag).inspect()).Id,
    v2: (await s.runtime.docker.getImage(IMAGES.v2.tag).inspect()).Id,
    v3: await ensureTestImage(s.runtime.docker, V3),
  };
  movingTag = `levelrail-test/promote-${s.shortName}:moving`; // not `latest`: that would be pulled
  for (const name of Object.keys(domains) as (keyof typeof domains)[]) domains[name] = `shop-${name}-${s.shortName}.localhost`;
  await s.startWorker({ ingress: { caddyAdmin: caddy.adminUrl, httpPort: ingressPort, httpsPort: null }, drainMs: 300, probeIntervalMs: 100 });
  production = { ctx: s.ctx, envId: s.ctx.envId, label: "production" };
  const st = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "staging" } });
  staging = { ctx: s.ctx, envId: st.id, label: "staging" };
  const b = await seedOrg(s.db, "envs-other", s.kit);
  other = { ctx: b, envId: b.envId, label: "other organization's production", cleanup: b.cleanup };
}, 180_000);

afterAll(async () => {
  await s?.teardown();
  await caddy?.stop();
  if (movingTag) await s?.runtime.docker.getImage(movingTag).remove().catch(() => undefined);
});

const viaCaddy = (host: string) => getByHost(ingressPort, host);

const serves = (host: string, body: string) =>
  waitFor(`${host} to answer ${JSON.stringify(body)} through Caddy`, async () => {
    const r = await viaCaddy(host).catch(() => null);
    return r?.status === 200 && r.body === body ? r : undefined;
  }, { timeoutMs: 30_000, describe: async () => JSON.stringify(await viaCaddy(host).catch((e: unknown) => String(e))) });

const serviceId = async (p: Place, name: string) => (await getService({ ctx: p.ctx, envId: p.envId, name })).id;
const containersOf = async (id: string) => s.runtime.listContainers(serviceFilter(s.shortName, id));

/** Waits until `releaseId` succeeded and exactly one container of the service runs (the old one drained); returns it. */
async function settled(p: Place, name: string, releaseId: string) {
  const id = await serviceId(p, name);
  return waitFor(
    `${p.label}'s ${name} to run release ${releaseId} alone`,
    async () => {
      const st = await getStatus({ ctx: p.ctx, envId: p.envId, name });
      if (st.lastDeploy?.id !== releaseId) return undefined;
      if (st.lastDeploy.outcome === "failed") throw new Error(`deploy of ${p.label}'s ${name} failed: ${st.message}`);
      if (st.lastDeploy.outcome !== "succeeded" || st.phase !== "running") return undefined;
      const all = await containersOf(id);
      const [only] = all;
      return all.length === 1 && only?.state === "running" ? only : undefined;
    },
    {
      timeoutMs: 120_000,
      describe: async () =>
        JSON.stringify({ status: await getStatus({ ctx: p.ctx, envId: p.envId, name }), containers: (await containersOf(id)).map((c) => [c.name, c.state]) }),
    },
  );
}

async function deploy(p: Place, name: string, image?: string) {
  const r = await deployService({ ctx: p.ctx, envId: p.envId, name, input: image ? { image } : {} });
  return settled(p, name, r.id);
}

/** The one running container of a service. */
async function runningContainer(p: Place, name: string) {
  const running = (await containersOf(await serviceId(p, name))).filter((c) => c.state === "running");
  expect(running, `${p.label}'s ${name} runs one container`).toHaveLength(1);
  return running[0]!;
}

const appNetwork = async (p: Place, appName: string) => networkName(s.shortName, (await getApp({ ctx: p.ctx, envId: p.envId, name: appName })).id);

const inside = (containerId: string, argv: string[]) => runInside(s.runtime, containerId, argv);
const wget = wgetArgv;

describe("(a, b) the same names in two environments and two organizations, at once", () => {
  it("shop/web in production, staging and another organization's production, each with its own image and domain", async () => {
    const setups: [Place, string, string][] = [
      [production, IMAGES.v2.tag, domains.production],
      [staging, IMAGES.v1.tag, domains.staging],
      [other, V3.tag, domains.other],
    ];
    for (const [p, image, domain] of setups) {
      await createApp({ ctx: p.ctx, envId: p.envId, input: { name: "shop" } });
      await createService({ ctx: p.ctx, envId: p.envId, input: { name: "web", app: "shop", image, port: 8080, healthPath: "/healthz", domains: [domain] } });
    }
    // Deployed at the same time: three releases recorded before any is waited for.
    const releases: { id: string }[] = [];
    for (const [p] of setups) releases.push(await deployService({ ctx: p.ctx, envId: p.envId, name: "web", input: {} }));
    await Promise.all(setups.map(([p], i) => settled(p, "web", releases[i]!.id)));

    await serves(domains.production, IMAGES.v2.body);
    await serves(domains.staging, IMAGES.v1.body);
    await serves(domains.other, V3.body);
    // All three at once, again, in one go.
    const bodies = await Promise.all([domains.production, domains.staging, domains.other].map((d) => viaCaddy(d)));
    expect(bodies.map((r) => r.body)).toEqual([IMAGES.v2.body, IMAGES.v1.body, V3.body]);
  });

  it("each runs its own image in its own container, labelled with its own ids", async () => {
    const seen = new Set<string>();
    for (const [p, imageId] of [[production, imageIds.v2], [staging, imageIds.v1], [other, imageIds.v3]] as const) {
      const c = await runningContainer(p, "web");
      const inspected = await s.runtime.docker.getContainer(c.id).inspect();
      expect(inspected.Image, p.label).toBe(imageId);
      expect(c.labels["levelrail.service"]).toBe(await serviceId(p, "web"));
      expect(c.labels["levelrail.app"]).toBe((await getApp({ ctx: p.ctx, envId: p.envId, name: "shop" })).id);
      seen.add(c.id);
    }
    expect(seen.size).toBe(3);
  });

  it("each app has its own network, named by its own app id, holding only its own containers", async () => {
    const places = [production, staging, other];
    const nets = await Promise.all(places.map((p) => appNetwork(p, "shop")));
    expect(new Set(nets).size).toBe(3);
    const containers = await Promise.all(places.map((p) => runningContainer(p, "web")));
    for (const [i, net] of nets.entries()) {
      const info = await s.runtime.inspectNetwork(net);
      expect(info, net).not.toBeNull();
      for (const [j, c] of containers.entries()) expect(info!.containers.includes(c.id), `${places[j]!.label}'s web on ${places[i]!.label}'s network`).toBe(i === j);
      expect(Object.keys(containers[i]!.addresses)).toEqual([net]);
    }
  });

  it("mesh names never cross: inside each network `web` and web.shop.<short>.internal are that environment's container", async () => {
    const full = meshName(s.shortName, "shop", "web");
    const places = [production, staging, other];
    const bodies = [IMAGES.v2.body, IMAGES.v1.body, V3.body];
    for (const [i, p] of places.entries()) {
      const c = await runningContainer(p, "web");
      const own = c.addresses[await appNetwork(p, "shop")]!;
      for (const name of ["web", full]) {
        const lookup = await inside(c.id, ["/bin/busybox", "nslookup", name]);
        expect(resolved(lookup.out), `${name} from ${p.label}: ${lookup.out}`).toEqual([own]);
        expect(await inside(c.id, wget(name)), `${name} from ${p.label}`).toEqual({ exitCode: 0, out: bodies[i] });
      }
    }
  });

  it("each organization sees only its own shop/web", async () => {
    const mine = await listServices({ ctx: s.ctx });
    expect(mine.map((x) => [x.environment, x.app, x.name]).sort()).toEqual([["production", "shop", "web"], ["staging", "shop", "web"]]);
    const theirs = await listServices({ ctx: other.ctx });
    expect(theirs.map((x) => [x.environment, x.app, x.name])).toEqual([["production", "shop", "web"]]);
  });
});

describe("(c) promote staging → production by exact image id", () => {
  it("after the tag moved, production runs exactly the image id staging runs, and its release says where it came from", async () => {
    // Staging deploys a tag of this suite's own, pointing at v1's image ...
    await s.runtime.docker.getImage(IMAGES.v1.tag).tag({ repo: movingTag.split(":")[0]!, tag: "moving" });
    await deploy(staging, "web", movingTag);
    await serves(domains.staging, IMAGES.v1.body);
    const stagingImage = (await s.runtime.docker.getContainer((await runningContainer(staging, "web")).id).inspect()).Image;
    expect(stagingImage).toBe(imageIds.v1);
    // ... then the tag moves to v2's image.
    await s.runtime.docker.getImage(IMAGES.v2.tag).tag({ repo: movingTag.split(":")[0]!, tag: "moving" });
    expect((await s.runtime.docker.getImage(movingTag).inspect()).Id).toBe(imageIds.v2);
    // Production runs v2: had the promote deployed the (moved) tag, it would stay on v2.
    await serves(domains.production, IMAGES.v2.body);

    // Through the normal cutover: production's domain never fails a request while it switches.
    const l = startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: domains.production, concurrency: 4, maxRequests: 200_000, maxMs: 90_000 });
    let r: Awaited<ReturnType<typeof promoteService>>;
    let c: Awaited<ReturnType<typeof settled>>;
    try {
      await l.successes(100);
      r = await promoteService({ ctx: s.ctx, envId: staging.envId, name: "web", input: { to: production.envId } });
      expect(r.kind).toBe("promote");
      c = await settled(production, "web", r.id);
      await l.successes(100);
    } finally {
      await l.stop();
    }
    const summary = JSON.stringify({ total: l.result.total, failed: l.result.failed, failures: l.result.failures, bodies: [...l.result.bodies] });
    expect(l.result.failed, summary).toBe(0);
    expect([...l.result.bodies.keys()].sort(), summary).toEqual([IMAGES.v1.body, IMAGES.v2.body]);
    expect(l.result.lastBody).toBe(IMAGES.v1.body);
    expect((await s.runtime.docker.getContainer(c.id).inspect()).Image).toBe(stagingImage);
    await serves(domains.production, IMAGES.v1.body);
    const [latest] = await listReleases({ ctx: s.ctx, envId: production.envId, name: "web" });
    expect(latest).toMatchObject({ id: r.id, kind: "promote", outcome: "succeeded", imageId: stagingImage });
    expect(latest!.promotedFrom).toMatchObject({ environmentId: staging.envId, environment: "staging" });
    // Staging is untouched.
    expect((await s.runtime.docker.getContainer((await runningContainer(staging, "web")).id).inspect()).Image).toBe(stagingImage);
    await serves(domains.staging, IMAGES.v1.body);
  });

  it("promoting to an environment without that service is a 404 naming it", async () => {
    const qa = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "qa" } });
    const err = await refusal(() => promoteService({ ctx: s.ctx, envId: staging.envId, name: "web", input: { to: qa.id } }));
    expect(err.code).toBe("not_found");
    expect(err.message).toContain("web");
    expect(err.message).toContain("qa");
    await deleteEnvironment({ ctx: s.ctx, envId: qa.id });
  });

  it("promoting across projects is refused; another organization's environment looks like one that does not exist", async () => {
    const p2 = await createProject({ ctx: s.ctx, input: { name: `elsewhere-${s.shortName}`, orgId: s.ctx.orgId } });
    const env2 = await createEnvironment({ ctx: s.ctx, projectId: p2.id, input: { name: "production" } });
    await createApp({ ctx: s.ctx, envId: env2.id, input: { name: "shop" } });
    await createService({ ctx: s.ctx, envId: env2.id, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    const across = await refusal(() => promoteService({ ctx: s.ctx, envId: staging.envId, name: "web", input: { to: env2.id } }));
    expect(across).toMatchObject({ code: "invalid_input", field: "to" });
    expect((await listReleases({ ctx: s.ctx, envId: env2.id, name: "web" })).length).toBe(0);

    const releasesBefore = await listReleases({ ctx: other.ctx, envId: other.envId, name: "web" });
    const foreign = await refusal(() => promoteService({ ctx: s.ctx, envId: staging.envId, name: "web", input: { to: other.envId } }));
    const missing = await refusal(() => promoteService({ ctx: s.ctx, envId: staging.envId, name: "web", input: { to: randomUUID() } }));
    expect(foreign).toEqual(missing);
    expect(foreign.code).toBe("not_found");
    expect(await listReleases({ ctx: other.ctx, envId: other.envId, name: "web" })).toEqual(releasesBefore);
    // And the other way: the other organization cannot promote into ours.
    const inbound = await refusal(() => promoteService({ ctx: other.ctx, envId: other.envId, name: "web", input: { to: production.envId } }));
    expect(inbound).toEqual(await refusal(() => promoteService({ ctx: other.ctx, envId: other.envId, name: "web", input: { to: randomUUID() } })));
  });
});

describe("(d, e) clone an environment, deploy the clone, delete it", () => {
  const HOOKS = { preDeploy: null, postDeploy: ["/bin/busybox", "true"], timeoutSeconds: 30 };
  let source: Place;
  let preview: Place;

  it("a clone copies apps, services, environment-tier vars and re-sealed secrets; no domains; nothing deploys", async () => {
    // The source: staging, with a second app, tier vars, a secret, env and hooks on web, a second service.
    source = staging;
    await putTierEnv({ ctx: s.ctx, tier: "environment", id: source.envId, input: { vars: { TIER: "staging", SHARED: "from-env-tier" } } });
    await patchService({ ctx: s.ctx, envId: source.envId, name: "web", input: { env: { LOG_LEVEL: "debug" }, hooks: HOOKS } });
    await putSecret({ ctx: s.ctx, envId: source.envId, name: "web", key: "API_TOKEN", input: { value: SECRET_VALUE } });
    await createApp({ ctx: s.ctx, envId: source.envId, input: { name: "admin" } });
    await createService({ ctx: s.ctx, envId: source.envId, input: { name: "panel", app: "admin", image: IMAGES.v2.tag, port: 8080, healthPath: "/healthz" } });
    const releasesOf = async (envId: string) =>
      (await s.db.select({ n: count() }).from(release).innerJoin(service, eq(service.id, release.serviceId)).where(eq(service.environmentId, envId)))[0]?.n;

    const env = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "preview", from: source.envId } });
    preview = { ctx: s.ctx, envId: env.id, label: "preview" };

    expect((await listApps({ ctx: s.ctx, envId: env.id })).map((a) => [a.name, a.services])).toEqual([["admin", 1], ["shop", 1]]);
    for (const name of ["admin", "shop"]) {
      expect((await getApp({ ctx: s.ctx, envId: env.id, name })).id).not.toBe((await getApp({ ctx: s.ctx, envId: source.envId, name })).id);
    }
    for (const name of ["web", "panel"]) {
      const [from, to] = [await getService({ ctx: s.ctx, envId: source.envId, name }), await getService({ ctx: s.ctx, envId: env.id, name })];
      expect(to.id).not.toBe(from.id);
      expect(to.environmentId).toBe(env.id);
      const { id: _a, environmentId: _b, domains: fromDomains, domainStatus: _i, createdAt: _c, updatedAt: _d, ...fromFields } = from;
      const { id: _e, environmentId: _f, domains: toDomains, domainStatus: _j, createdAt: _g, updatedAt: _h, ...toFields } = to;
      expect(toFields, name).toEqual(fromFields);
      expect(toDomains, `${name}: domains are not copied`).toEqual([]);
      if (name === "web") expect(fromDomains).toEqual([domains.staging]);
    }
    expect((await getService({ ctx: s.ctx, envId: env.id, name: "web" })).hooks).toEqual(HOOKS);
    expect(await getTierEnv({ ctx: s.ctx, tier: "environment", id: env.id })).toEqual({ vars: { TIER: "staging", SHARED: "from-env-tier" } });

    // Secrets: re-sealed (the sealed strings differ), keys only through the API, values null in the effective env.
    const sealedOf = async (envId: string) =>
      s.db
        .select({ sealed: secret.sealed })
        .from(secret)
        .innerJoin(service, eq(service.id, secret.serviceId))
        .where(and(eq(service.environmentId, envId), eq(service.name, "web"), eq(secret.key, "API_TOKEN")));
    const [[fromSealed], [toSealed]] = [await sealedOf(source.envId), await sealedOf(env.id)];
    expect(fromSealed && toSealed, "both have a sealed API_TOKEN").toBeTruthy();
    expect(toSealed!.sealed !== fromSealed!.sealed, "the clone's secret is sealed anew").toBe(true);
    expect(toSealed!.sealed.includes(SECRET_VALUE), "the sealed string holds no plain value").toBe(false);
    const listed = await listSecrets({ ctx: s.ctx, envId: env.id, name: "web" });
    expect(listed.map((x) => Object.keys(x).sort())).toEqual([["key", "updatedAt"]]);
    expect(listed.map((x) => x.key)).toEqual(["API_TOKEN"]);
    const eff = await effectiveEnv({ ctx: s.ctx, envId: env.id, name: "web" });
    // Booleans only: were the value there, a failure message would print it.
    const token = eff.find((e) => e.key === "API_TOKEN");
    expect(token?.source === "secret" && token.value === null, "API_TOKEN is a secret shown as null").toBe(true);
    expect(eff.find((e) => e.key === "LOG_LEVEL")?.value).toBe("debug");
    expect(eff.find((e) => e.key === "SHARED")?.value).toBe("from-env-tier");
    expect(JSON.stringify(eff).includes(SECRET_VALUE), "no secret value in the effective env").toBe(false);

    // Nothing deploys until asked.
    expect(await releasesOf(env.id)).toBe(0);
    for (const name of ["web", "panel"]) {
      expect((await getStatus({ ctx: s.ctx, envId: env.id, name })).phase).toBe("stopped");
      expect(await containersOf(await serviceId(preview, name))).toEqual([]);
    }
    // The source still serves as before.
    await serves(domains.staging, IMAGES.v1.body);
  });

  it("a clone with deploy deploys every service; the container's env holds the secret value", async () => {
    const env = await createEnvironment({ ctx: s.ctx, projectId: s.ctx.projectId, input: { name: "preview2", from: preview.envId }, deploy: true });
    const p2: Place = { ctx: s.ctx, envId: env.id, label: "preview2" };
    for (const name of ["web", "panel"]) {
      const [r] = await listReleases({ ctx: s.ctx, envId: env.id, name });
      expect(r, `${name} got a release`).toBeDefined();
      await settled(p2, name, r!.id);
    }
    const web = await runningContainer(p2, "web");
    const containerEnv = (await s.runtime.docker.getContainer(web.id).inspect()).Config.Env ?? [];
    // Compared as booleans: a failure never prints the value.
    expect(containerEnv.includes(`API_TOKEN=${SECRET_VALUE}`), "the clone's container has the secret value").toBe(true);
    expect(containerEnv.includes("SHARED=from-env-tier")).toBe(true);
    expect(containerEnv.includes("LOG_LEVEL=debug")).toBe(true);
    // Its own network, apart from the source's.
    expect(Object.keys(web.addresses)).toEqual([await appNetwork(p2, "shop")]);
    expect(await appNetwork(p2, "shop")).not.toBe(await appNetwork(staging, "shop"));
    // The hook ran in the clone.
    const [rel] = await listReleases({ ctx: s.ctx, envId: env.id, name: "web" });
    expect(rel?.outcome).toBe("succeeded");
  });

  it("deleting an environment removes its containers, networks and records; the others keep serving", async () => {
    const gone = await s.db.select().from(environment).where(eq(environment.name, "preview2"));
    const envId = gone[0]!.id;
    const p2: Place = { ctx: s.ctx, envId, label: "preview2" };
    const serviceIds = await Promise.all(["web", "panel"].map((n) => serviceId(p2, n)));
    const networks = await Promise.all(["shop", "admin"].map((n) => appNetwork(p2, n)));
    expect((await Promise.all(serviceIds.map(containersOf))).flat().length).toBe(2);

    await deleteEnvironment({ ctx: s.ctx, envId });

    await waitFor("preview2's containers and networks to be gone", async () => {
      const left = (await Promise.all(serviceIds.map(containersOf))).flat();
      const nets = (await Promise.all(networks.map((n) => s.runtime.inspectNetwork(n)))).filter((n) => n !== null);
      return left.length === 0 && nets.length === 0 ? true : undefined;
    }, {
      timeoutMs: 90_000,
      describe: async () =>
        JSON.stringify({
          containers: (await Promise.all(serviceIds.map(containersOf))).flat().map((c) => c.name),
          networks: (await Promise.all(networks.map((n) => s.runtime.inspectNetwork(n)))).filter((n) => n !== null).map((n) => n!.name),
        }),
    });
    expect(await s.db.select().from(environment).where(eq(environment.id, envId))).toEqual([]);
    expect(await s.db.select().from(app).where(eq(app.environmentId, envId))).toEqual([]);
    expect(await s.db.select().from(service).where(eq(service.environmentId, envId))).toEqual([]);
    expect(await s.db.select().from(service).where(inArray(service.id, serviceIds))).toEqual([]);
    expect(await s.db.select().from(secret).where(inArray(secret.serviceId, serviceIds))).toEqual([]);
    expect(await s.db.select().from(release).where(inArray(release.serviceId, serviceIds))).toEqual([]);
    expect(await s.db.select().from(envVar).where(and(eq(envVar.scope, "environment"), eq(envVar.scopeId, envId)))).toEqual([]);
    expect((await refusal(() => getStatus({ ctx: s.ctx, envId, name: "web" }))).code).toBe("not_found");

    // Everything else is still there and serving.
    await serves(domains.production, IMAGES.v1.body);
    await serves(domains.staging, IMAGES.v1.body);
    await serves(domains.other, V3.body);
    expect((await getService({ ctx: s.ctx, envId: preview.envId, name: "web" })).environmentId).toBe(preview.envId);
  });
});
