import type { Db, Sql } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import type { Runtime } from "@levelrail/docker";
import type { Keyring } from "@levelrail/secrets";
import { pgEnvStores } from "@levelrail/services/env/sources";
import type { MeshPort } from "@levelrail/spec/dataplane";
import { formatKey, serviceKey } from "@levelrail/spec/keys";
import { Labels, instanceFilter, meshName, meshZone, networkName } from "@levelrail/spec/naming";
import { httpProber } from "./controllers/application/ports";
import { ProberManager } from "./controllers/application/prober";
import { applicationController } from "./controllers/application/reconcile";
import { caddyAdmin } from "./controllers/ingress/caddy";
import { type IngressSettings, isLocalDomain } from "./controllers/ingress/desired";
import { INGRESS_KEY, ingressController } from "./controllers/ingress/reconcile";
import { NETWORKS_KEY, networkCleanupController } from "./controllers/network-cleanup/reconcile";
import type { Controller } from "./reconcile/controller";
import { pgFleetStore } from "./fleet-store";
import { pgHookRecorder } from "./hook-store";
import { MeshDns } from "./mesh/dns";
import { hostNameservers } from "./mesh/upstream";
import { workerMetrics } from "./metrics";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL, type SubnetPool } from "./network/pool";
import { Runner, type RunnerEvent } from "./reconcile/runner";
import { pgServiceStore } from "./store";

export interface WorkerOptions {
  db: Db;
  sql: Sql;
  runtime: Runtime;
  shortName: string;
  keyring: Keyring;
  resyncMs: number;
  probeIntervalMs?: number;
  /** Timeout of a hook whose service sets none (seconds). */
  defaultHookTimeoutSeconds?: number;
  /** Subnets for app networks. */
  networkPool?: SubnetPool;
  /** Where Caddy asks the mesh DNS (loopback); containers ask it on their network's gateway, port 53. */
  meshDnsPort: number;
  /** How long an old container keeps serving after the switch. */
  drainMs?: number;
  /** Nameservers app containers ask after the mesh DNS, for every other name; default: the host's (`hostNameservers`). */
  upstreamDns?: string[];
  /** Caddy's admin API and the ports it serves domains on; absent: no ingress controller. */
  ingress?: { caddyAdmin: string; httpPort: number; httpsPort: number | null } | undefined;
  /** Loopback port for Prometheus metrics; absent: not served. */
  metricsPort?: number | undefined;
  log: (line: string) => void;
  onEvent?: (e: RunnerEvent) => void;
}

/** Wires stores, runtime and controllers to their runners; LISTEN, Docker-free resync and timers feed them. */
export async function startWorker(o: WorkerOptions) {
  const store = pgServiceStore(o.db);
  const fleet = pgFleetStore(o.db);
  const metrics = workerMetrics();
  const zone = meshZone(o.shortName);
  const mesh = new MeshDns({ zone, log: o.log });
  await mesh.listen("127.0.0.1", o.meshDnsPort);

  // Temporary adapter (until the data-plane process takes over): the new MeshPort onto the in-process
  // MeshDns, which needs the container's address and must listen on the app network's gateway itself.
  const gatewayFailures = new Set<string>();
  const meshNames = new Map<string, string>(); // serviceId → mesh name
  const serveApp = async (gateway: string, app: string) => {
    try {
      await mesh.listen(gateway, 53, `${app}.${zone}`);
    } catch (err) {
      // Containers still run; only mesh names fail to resolve inside them. Say so once per gateway.
      if (!gatewayFailures.has(gateway)) o.log(`[mesh-dns] cannot listen on ${gateway}:53 (${describe(err)}); mesh names will not resolve inside app containers`);
      gatewayFailures.add(gateway);
    }
  };
  const meshPort: MeshPort = {
    async setActive(serviceId, entry) {
      const before = meshNames.get(serviceId);
      if (!entry) {
        if (before) mesh.setActive(before, null);
        meshNames.delete(serviceId);
        return;
      }
      const name = meshName(o.shortName, entry.app, entry.service);
      if (before && before !== name) mesh.setActive(before, null);
      meshNames.set(serviceId, name);
      const network = networkName(o.shortName, entry.appId);
      const net = await o.runtime.inspectNetwork(network);
      if (net?.gateway) await serveApp(net.gateway, entry.app);
      const c = await o.runtime.inspectContainer(entry.container);
      mesh.setActive(name, c?.addresses[network] ?? null);
    },
  };

  const runners: Runner[] = [];
  const runner = (controller: Controller, extraLog?: (e: RunnerEvent) => void) => {
    const r: Runner = new Runner(controller, {
      log: (e) => {
        extraLog?.(e);
        metrics.observe(controller.name, () => r.depth)(e);
        if (e.type === "error") o.log(`[${controller.name}] ${e.key}: ${describe(e.error)}; retry in ${e.retryInMs} ms`);
        if (e.type === "terminal") o.log(`[${controller.name}] ${e.key}: ${e.error.message}`);
      },
    });
    runners.push(r);
    return r;
  };

  const stores = pgEnvStores(o.db, o.keyring);
  // Readiness probes run outside the passes and wake the service's key (the runner is made just below).
  const prober = new ProberManager({ prober: httpProber, intervalMs: o.probeIntervalMs ?? 100, wake: (key) => application.enqueue(key) });
  const application: Runner = runner(
    applicationController({
      shortName: o.shortName,
      runtime: o.runtime,
      store,
      status: store,
      prober,
      probeIntervalMs: o.probeIntervalMs ?? 100,
      envStores: stores,
      registry: stores,
      hooks: pgHookRecorder(o.db),
      defaultHookTimeoutSeconds: o.defaultHookTimeoutSeconds ?? 300,
      networkPool: o.networkPool ?? { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS },
      mesh: meshPort,
      upstreamDns: o.upstreamDns ?? hostNameservers(),
      drainMs: o.drainMs ?? 2000,
      deploys: {
        async recordDeploy(releaseId, outcome) {
          const ms = await fleet.recordDeploy(releaseId, outcome);
          if (ms !== null) metrics.deploySeconds.observe({ outcome }, ms / 1000);
        },
      },
    }),
    o.onEvent,
  );
  const networks = runner(
    networkCleanupController({
      shortName: o.shortName,
      runtime: o.runtime,
      store: fleet,
      onRemoved: (gateway) => gateway && mesh.unlisten(gateway, 53),
    }),
  );
  const settings: IngressSettings | null = o.ingress
    ? { shortName: o.shortName, httpPort: o.ingress.httpPort, httpsPort: o.ingress.httpsPort, meshDns: `127.0.0.1:${o.meshDnsPort}`, plainHttp: isLocalDomain }
    : null;
  const ingress =
    o.ingress && settings ? runner(ingressController({ settings, store: fleet, caddy: caddyAdmin(o.ingress.caddyAdmin), recheckMs: 10_000 })) : null;

  const route = (key: string) => {
    if (key.startsWith("service:")) {
      application.enqueue(key);
      ingress?.enqueue(INGRESS_KEY); // domains may have changed
    } else if (key === NETWORKS_KEY) networks.enqueue(key);
    else if (key === INGRESS_KEY) ingress?.enqueue(key);
  };

  const resync = async () => {
    const ids = new Set(await store.listServiceIds());
    // Containers of services that no longer exist are reconciled too, so they get removed.
    for (const c of await o.runtime.listContainers(instanceFilter(o.shortName))) {
      const svc = c.labels[Labels.service];
      if (svc) ids.add(svc);
    }
    for (const id of ids) application.enqueue(formatKey(serviceKey(id)));
    networks.enqueue(NETWORKS_KEY);
    ingress?.enqueue(INGRESS_KEY);
  };

  const unlisten = await listenDesired(o.sql, route);
  // A container of ours that dies, starts (the engine restarting a live one) or goes away wakes its service at once, not at the next resync.
  const unwatch = o.runtime.watchContainers(instanceFilter(o.shortName), (e) => {
    const svc = e.labels[Labels.service];
    if (svc && ["die", "destroy", "stop", "kill", "oom", "start"].includes(e.action)) application.enqueue(formatKey(serviceKey(svc)));
  });
  await resync();
  const timer = setInterval(() => {
    resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
  }, o.resyncMs);
  timer.unref();
  const metricsServer = o.metricsPort === undefined ? null : await metrics.serve(o.metricsPort);

  return {
    application,
    networks,
    ingress,
    mesh,
    metrics,
    resync,
    async stop() {
      clearInterval(timer);
      unwatch();
      prober.stop();
      await unlisten();
      await Promise.all(runners.map((r) => r.stop()));
      mesh.close();
      metricsServer?.close();
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
