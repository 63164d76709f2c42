import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, freePortPair } from "@levelrail/testkit/registry";
import { Replica, sleep, writeState } from "@levelrail/dataplane/test-replicas";
import { dockerRuntime } from "@levelrail/docker";
import { caddyAdminConfig } from "@levelrail/spec/caddy-admin";
import { Roles, containerName, instanceFilter, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { getByHost } from "@levelrail/testkit/http";
import { ensureTestImage } from "@levelrail/testkit/images";
import { type LoadResult, startLoad } from "@levelrail/testkit/load";
import { waitFor } from "@levelrail/testkit/wait";
import { desiredServers } from "./desired";

/**
 * A frozen or restarting mesh DNS stalls nothing: the real Caddy, configured by `desired.ts`, asks
 * two real mesh DNS replicas over TCP for each request's upstream (a real container); one replica is
 * frozen (SIGSTOP) or killed under load.
 */
// Free ports of this suite's own: the `npm test` run around it holds its own ports with its data plane and Caddy.
const BASE = await freePortPair();
const HTTP_PORT = await freePort();
const short = `lrmd${randomBytes(2).toString("hex")}`;
const domain = `shop-${short}.localhost`;
const appId = `app-${short}`;
const network = networkName(short, appId);
const IMAGE = { tag: "levelrail-test/web:v1", body: "v1\n", healthy: true } as const;
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const dataDir = mkdtempSync(join(tmpdir(), "levelrail-freeze-"));
const env: NodeJS.ProcessEnv = { ...process.env, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_SHORT_NAME: short, LEVELRAIL_MESH_DNS_PORT: String(BASE), LEVELRAIL_DATAPLANE_VERSION: "test" };
delete env.LEVELRAIL_MESH_DNS_REPLICA;
const replicas = [new Replica(0, env), new Replica(1, env)] as const;
let caddy: TestCaddy;

/** Creates the app network on a free subnet (the engine refuses one that overlaps another). */
async function createNetwork(): Promise<void> {
  for (let i = 0; ; i++) {
    const third = randomBytes(1)[0]!;
    try {
      await runtime.createNetwork(network, networkLabels(short, appId), `10.253.${third}.0/28`, `10.253.${third}.1`);
      return;
    } catch (err) {
      if (i > 20) throw err;
    }
  }
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;
const summary = (r: LoadResult, from = 0) => {
  const ms = r.samples.filter((s) => s.at >= from).map((s) => s.ms);
  return { total: ms.length, failed: r.failed, max: Math.max(...ms), p99: percentile(ms, 0.99), p50: percentile(ms, 0.5) };
};
const lookupErrors = () => caddy.log().split("\n").filter((l) => l.includes("failed getting dynamic upstreams")).length;

beforeAll(async () => {
  await ensureTestImage(runtime.docker, IMAGE);
  await createNetwork();
  const container = containerName(short, "web", { serviceId: "s1", imageId: "sha256:v1", restartNonce: "" });
  const id = await runtime.createContainer({
    name: container,
    Image: IMAGE.tag,
    Labels: serviceLabels(short, { serviceId: "s1", appId, environmentId: "e1", releaseId: "r1" }, Roles.service),
    HostConfig: { NetworkMode: network },
  });
  await runtime.startContainer(id!);
  writeState(dataDir, { version: 1, generation: 1, services: { s1: { appId, app: "shop", service: "web", container, port: 8080 } }, domains: { [domain]: "s1" } });
  for (const r of replicas) await r.start();
  for (const [i, r] of replicas.entries()) await r.logged(`[watchdog] sibling is pid ${replicas[1 - i]!.pid}`);
}, 180_000);

/** A Caddy of the test's own with the config the worker loads, serving the domain. */
async function startIngress(resolvConf: string | undefined): Promise<void> {
  caddy = await startCaddy({ resolvConf });
  const servers = desiredServers({ shortName: short, httpPort: HTTP_PORT, httpsPort: null, dataPlane: `127.0.0.1:${BASE}` });
  const res = await caddy.admin("/load", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ admin: caddyAdminConfig(caddy.adminUrl), apps: { http: { servers } } }) });
  expect(res.status).toBe(200);
  let last = "";
  await waitFor("the domain to serve through Caddy", async () => {
    const r = await getByHost(HTTP_PORT, domain).catch((e: unknown) => String(e));
    last = typeof r === "string" ? r : `${r.status} ${r.body}`;
    return last === `200 ${IMAGE.body}` ? true : undefined;
  }, { timeoutMs: 30_000, describe: async () => `${last}\n${caddy.log().slice(-3000)}\n${replicas.map((r) => r.output.slice(-1500)).join("\n")}` });
}

afterAll(async () => {
  for (const r of replicas) await r.stop();
  for (const c of await runtime.listContainers(instanceFilter(short)).catch(() => [])) await runtime.removeContainer(c.id);
  await runtime.removeNetwork(network).catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

/** What Caddy's container gets (the resolver's tries: 3 servers × 5 attempts, each picking a replica at random). */
const CONTAINER_RESOLV_CONF = "nameserver 127.0.0.1\nnameserver 127.0.0.1\nnameserver 127.0.0.1\noptions timeout:1 attempts:5\n";

describe.each([
  { label: "the host's /etc/resolv.conf", resolvConf: undefined },
  { label: "a container's resolv.conf (3 servers, timeout:1 attempts:5)", resolvConf: CONTAINER_RESOLV_CONF },
])("Caddy through two mesh DNS replicas, with $label", ({ label, resolvConf }) => {
  beforeAll(() => startIngress(resolvConf), 60_000);
  afterAll(() => caddy?.stop());

  it("a replica frozen under load (killed by its sibling, restarted) fails no request and stalls none for long", async () => {
    const load = startLoad({ url: `http://127.0.0.1:${HTTP_PORT}/`, host: domain, concurrency: 4, maxRequests: 1_000_000, maxMs: 60_000, timeoutMs: 3000 });
    await sleep(1000);
    const before = summary(load.result);
    const errorsBefore = lookupErrors();
    for (const [i, victim] of [replicas[1], replicas[0]].entries()) {
      await victim.settled(replicas[i]!);
      const t0 = performance.now();
      victim.signal("SIGSTOP");
      await waitFor("the frozen replica to be killed", async () => victim.exit ?? undefined, { timeoutMs: 5000, intervalMs: 5 });
      const killedMs = victim.exit!.at - t0;
      const signal = victim.exit!.signal;
      await sleep(1000); // the engine restarts it after a while; meanwhile one replica serves
      await victim.start();
      await sleep(3000 - (performance.now() - t0));
      const s = summary(load.result, t0);
      console.log(`[${label}] replica ${victim.replica} frozen at t0: killed after ${killedMs.toFixed(0)} ms; the 3 s from t0: ${s.total} requests, ${load.result.failed} failed so far, slowest ${s.max.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, p50 ${s.p50.toFixed(1)} ms`);
      expect(signal).toBe("SIGKILL");
      expect(killedMs).toBeLessThan(400);
    }
    const result = await load.stop();
    const all = summary(result);
    console.log(
      `[${label}] before any freeze: ${before.total} requests, slowest ${before.max.toFixed(0)} ms; overall: ${all.total} requests, ${result.failed} failed, slowest ${all.max.toFixed(0)} ms, p99 ${all.p99.toFixed(0)} ms; ` +
        `Caddy logged ${lookupErrors() - errorsBefore} failed lookups (each retried)`,
    );
    expect(result.failures).toEqual([]);
    expect(result.failed).toBe(0);
    expect(all.max).toBeLessThan(1000);
  });

  it("a replica that is down (killed, not yet restarted) for 3 s fails no request", async () => {
    const load = startLoad({ url: `http://127.0.0.1:${HTTP_PORT}/`, host: domain, concurrency: 4, maxRequests: 1_000_000, maxMs: 60_000, timeoutMs: 3000 });
    await sleep(500);
    const errorsBefore = lookupErrors();
    const t0 = performance.now();
    replicas[1].signal("SIGKILL");
    await sleep(3000);
    const s = summary(load.result, t0);
    await replicas[1].start();
    await sleep(500);
    const result = await load.stop();
    console.log(`[${label}] replica 1 down 3 s: ${s.total} requests, ${result.failed} failed, slowest ${s.max.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, p50 ${s.p50.toFixed(1)} ms; Caddy logged ${lookupErrors() - errorsBefore} failed lookups`);
    expect(result.failures).toEqual([]);
    expect(s.max).toBeLessThan(1000);
  });
});
