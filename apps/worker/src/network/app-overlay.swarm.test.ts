import { randomBytes } from "node:crypto";
import { dockerRuntime } from "@levelrail/docker";
import { MTU_OPTION, dockerSwarm } from "@levelrail/docker/swarm";
import { networkName } from "@levelrail/spec/naming";
import { NODE_MTU_LABEL } from "@levelrail/spec/nodes";
import { type SwarmHarness, startSwarm } from "@levelrail/testkit/swarm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { NetworkTakenError } from "./app-network";
import { appOverlayMtu, ensureAppOverlay } from "./app-overlay";

// An app's overlay network on a real two-engine swarm (issue 26): its own, with a subnet from the
// installation's pool and the MTU the nodes' interfaces allow. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const pool = { pool: "10.233.0.0/16", bits: 26 };
let h: SwarmHarness;

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1, mtu: { 2: 1400 } });
  // As `levelrail node join` labels them after measuring.
  const swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  for (const n of await swarm.listNodes()) await swarm.updateNode(n.id, { labels: { [NODE_MTU_LABEL]: n.address === h.manager.address ? "1500" : "1400" } });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

it("each app gets its own overlay, a pool subnet no other network has, at the smallest node MTU less 50; asking again changes nothing", async () => {
  const runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  const swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  const a = await ensureAppOverlay(runtime, swarm, short, `a${run}`, pool);
  const b = await ensureAppOverlay(runtime, swarm, short, `b${run}`, pool);
  expect(a).toMatchObject({ name: networkName(short, `a${run}`), mtu: 1350 });
  expect(a.subnet).toMatch(/^10\.233\.\d+\.\d+\/26$/);
  expect(b.subnet).not.toBe(a.subnet);
  const inspected = (await h.manager.docker.getNetwork(a.name).inspect()) as { Driver: string; Attachable: boolean; Scope: string; Options: Record<string, string> };
  expect(inspected).toMatchObject({ Driver: "overlay", Attachable: true, Scope: "swarm" });
  expect(inspected.Options[MTU_OPTION]).toBe("1350");
  expect(await ensureAppOverlay(runtime, swarm, short, `a${run}`, pool)).toEqual(a);
  expect((await runtime.listNetworks([])).filter((n) => n.name === a.name)).toHaveLength(1);
});

it("where the kernel can encrypt overlays (the installation's policy says so), every overlay the worker's port makes is encrypted between the nodes: an app's and a pinned database's", async () => {
  const runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  const swarm = dockerSwarm({ dockerHost: h.manager.dockerHost, encryptOverlays: () => true });
  const app = await ensureAppOverlay(runtime, swarm, short, `e${run}`, pool);
  await swarm.createOverlayNetwork({ name: `${short}-db-e${run}`, labels: { "levelrail.managed": "true", "levelrail.instance": short }, subnet: null, gateway: null, encrypted: false, mtu: null });
  for (const name of [app.name, `${short}-db-e${run}`]) {
    const options = ((await h.manager.docker.getNetwork(name).inspect()) as { Options: Record<string, string> | null }).Options ?? {};
    expect(options.encrypted, name).toBe("");
  }
  // where it cannot, none is
  const plain = await ensureAppOverlay(runtime, dockerSwarm({ dockerHost: h.manager.dockerHost, encryptOverlays: () => false }), short, `p${run}`, pool);
  expect(((await h.manager.docker.getNetwork(plain.name).inspect()) as { Options: Record<string, string> | null }).Options?.encrypted).toBeUndefined();
});

it("a network of the app's name that is not the app's is never taken over", async () => {
  const runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  const swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  await h.manager.docker.createNetwork({ Name: networkName(short, `c${run}`), Driver: "overlay", Attachable: true });
  await expect(ensureAppOverlay(runtime, swarm, short, `c${run}`, pool)).rejects.toBeInstanceOf(NetworkTakenError);
});

it("without measured MTUs the engine's default stands", () => {
  expect(appOverlayMtu([{ labels: {} }, { labels: { [NODE_MTU_LABEL]: "9000" } }])).toBe(8950);
  expect(appOverlayMtu([{ labels: {} }])).toBeNull();
});
