import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp, deleteApp, getApp } from "@levelrail/services/app/app";
import { setOrgQuotas } from "@levelrail/services/org/quota";
import { deployService } from "@levelrail/services/release/deploy";
import { createService, deleteService } from "@levelrail/services/service/write";
import { Labels, networkName } from "@levelrail/spec/naming";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";
import { ensureAppNetwork } from "../../network/app-network";
import { type SubnetPool, parseCidr } from "../../network/pool";
import { NETWORKS_KEY, formatKey } from "@levelrail/spec/keys";

/** Network cleanup on the real engine: only networks of ours whose app is gone are removed. */
let s: Awaited<ReturnType<typeof setupSuite>>;
let worker: Awaited<ReturnType<typeof s.startWorker>>;
/** A pool of this suite's own, apart from the default one other suites use. */
const POOL: SubnetPool = { pool: "10.213.0.0/16", bits: 26 };
const foreign: string[] = [];

beforeAll(async () => {
  s = await setupSuite("netclean");
  worker = await s.startWorker({ networkPool: POOL });
}, 120_000);

afterAll(async () => {
  for (const n of foreign) await s?.runtime.removeNetwork(n);
  await s?.teardown(); // up to 200 networks if the scale test failed half-way: about half a second each
}, 300_000);

const exists = async (name: string) => (await s.runtime.inspectNetwork(name)) !== null;
/** One full cleanup pass that starts after everything committed so far. */
const cleanupPass = async () => {
  worker.networks.enqueue(formatKey(NETWORKS_KEY));
  await worker.networks.idle();
};

describe("network cleanup", () => {
  it("removes the network of an app whose last service is deleted, and keeps that of an app with no services", async () => {
    const gone = await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "gone" } });
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "solo", app: "gone", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "solo", input: {} });
    expect((await s.waitPhase("solo", ["running", "failed"])).phase).toBe("running");
    const goneNet = networkName(s.shortName, gone.id);
    expect((await s.runtime.inspectNetwork(goneNet))?.containers).toHaveLength(1);

    const empty = await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "empty" } });
    const emptyNet = (await ensureAppNetwork(s.runtime, s.shortName, empty.id, POOL)).name;

    await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name: "solo" });
    await expect(getApp({ ctx: s.ctx, envId: s.ctx.envId, name: "gone" })).rejects.toThrow(/not found/); // the last service took its app along
    await waitFor(`${goneNet} to be removed`, async () => ((await exists(goneNet)) ? undefined : true), { timeoutMs: 30_000 });
    await waitFor("solo's container to be removed", async () => ((await s.containers("solo")).length === 0 ? true : undefined));

    await cleanupPass();
    expect(await exists(emptyNet)).toBe(true);
  });

  it("leaves networks it did not create alone, even under our name or with another instance's labels", async () => {
    const ghost = randomUUID(); // an app id no row has
    const unlabelled = networkName(s.shortName, ghost);
    const otherInstance = `lrother-app-${ghost}`;
    const noApp = `${s.shortName}-app-nolabel-${ghost.slice(0, 8)}`;
    const create = async (Name: string, labels: Record<string, string>) => {
      await s.runtime.docker.createNetwork({ Name, Driver: "bridge", Labels: labels });
      foreign.push(Name);
    };
    await create(unlabelled, {});
    await create(otherInstance, { [Labels.managed]: "true", [Labels.instance]: "lrother", [Labels.app]: ghost });
    await create(noApp, { [Labels.managed]: "true", [Labels.instance]: s.shortName });

    await cleanupPass();
    await cleanupPass();
    for (const n of [unlabelled, otherInstance, noApp]) expect(await exists(n), n).toBe(true);
  });

  it("200 apps on one engine get distinct subnets from the pool, and deleting them removes all 200 networks", async () => {
    const pool = parseCidr(POOL.pool);
    const apps: { id: string; name: string }[] = [];
    // More than the default apps quota (50): the administrator raised this organization's.
    await setOrgQuotas(s.db, s.ctx.orgId, { apps: 250 }, undefined);
    for (let i = 0; i < 200; i++) apps.push(await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: `scale-${i}` } }));
    const nets: { name: string; gateway: string }[] = [];
    const started = Date.now();
    for (const a of apps) nets.push(await ensureAppNetwork(s.runtime, s.shortName, a.id, POOL));

    const subnets = await Promise.all(nets.map(async (n) => (await s.runtime.inspectNetwork(n.name))?.subnets ?? []));
    expect(subnets.every((x) => x.length === 1)).toBe(true);
    expect(new Set(subnets.flat()).size).toBe(200);
    for (const [i, [subnet]] of subnets.entries()) {
      const c = parseCidr(subnet!);
      expect(c.bits).toBe(POOL.bits);
      expect(c.base >= pool.base && c.base < pool.base + 2 ** (32 - pool.bits), subnet).toBe(true);
      expect(nets[i]!.gateway).toBe(subnet!.replace(/\d+\/\d+$/, (m) => String(Number(m.split("/")[0]) + 1)));
    }

    for (const a of apps) await deleteApp({ ctx: s.ctx, envId: s.ctx.envId, name: a.name });
    const t0 = Date.now();
    await waitFor("the 200 networks to be removed", async () => {
      const left = await s.runtime.docker.listNetworks({ filters: { label: [`${Labels.instance}=${s.shortName}`] } });
      return left.some((n) => nets.some((x) => x.name === n.Name)) ? undefined : true;
    }, { timeoutMs: 300_000, intervalMs: 500 });
    console.log(`scale: 200 networks created in ${((t0 - started) / 1000).toFixed(1)} s, removed by the cleanup in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    // Only those: the app with no services keeps its network.
    expect(await exists(networkName(s.shortName, (await getApp({ ctx: s.ctx, envId: s.ctx.envId, name: "empty" })).id))).toBe(true);
  }, 480_000); // the engine takes about 0.6 s to create a bridge network and as long to remove one
});
