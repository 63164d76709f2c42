import type { Db, Sql } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import type { Runtime } from "@levelrail/docker";
import type { Keyring } from "@levelrail/secrets";
import { pgEnvStores } from "@levelrail/services/env/sources";
import { INGRESS_KEY, NETWORKS_KEY, type ReconcileKey, formatKey, isServiceId, serviceKey } from "@levelrail/spec/keys";
import { Labels, instanceFilter } from "@levelrail/spec/naming";
import { httpProber } from "./controllers/application/ports";
import { ProberManager } from "./controllers/application/prober";
import { applicationController } from "./controllers/application/reconcile";
import { caddyAdmin } from "./controllers/ingress/caddy";
import type { IngressSettings } from "./controllers/ingress/desired";
import { ingressController } from "./controllers/ingress/reconcile";
import { networkCleanupController } from "./controllers/network-cleanup/reconcile";
import type { Controller } from "./reconcile/controller";
import { pgFleetStore } from "./fleet-store";
import { pgHookRecorder } from "./hook-store";
import { StatePublisher } from "./dataplane/publisher";
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
  /** The data plane's loopback port (DNS for Caddy, its `ask` endpoint); containers ask it on their network's gateway, port 53. */
  meshDnsPort: number;
  /** The file the data plane follows (`<data dir>/dataplane/state.json`). */
  dataPlaneStateFile: string;
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
  const dataPlane = new StatePublisher(o.dataPlaneStateFile);

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
      mesh: dataPlane,
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
    }),
  );
  const settings: IngressSettings | null = o.ingress
    ? { shortName: o.shortName, httpPort: o.ingress.httpPort, httpsPort: o.ingress.httpsPort, dataPlane: `127.0.0.1:${o.meshDnsPort}` }
    : null;
  const ingress =
    o.ingress && settings ? runner(
          ingressController({
            settings,
            store: fleet,
            caddy: caddyAdmin(o.ingress.caddyAdmin),
            dataPlane: { domains: () => dataPlane.current().domains, setDomains: (d) => dataPlane.setDomains(d) },
            recheckMs: 10_000,
          }),
        ) : null;

  const route = (key: ReconcileKey) => {
    switch (key.kind) {
      case "service":
        application.enqueue(formatKey(key));
        ingress?.enqueue(formatKey(INGRESS_KEY)); // domains may have changed
        return;
      case "networks":
        networks.enqueue(formatKey(key));
        return;
      case "ingress":
        ingress?.enqueue(formatKey(key));
        return;
      default: {
        const unknown: never = key;
        throw new Error(`no controller for reconcile key ${JSON.stringify(unknown)}`);
      }
    }
  };

  const resync = async () => {
    const known = await store.listServiceIds();
    const ids = new Set(known);
    // A service deleted while no worker ran: its data-plane entry goes.
    await dataPlane.retain(new Set(known));
    // Containers of services that no longer exist are reconciled too, so they get removed.
    for (const c of await o.runtime.listContainers(instanceFilter(o.shortName))) {
      const svc = c.labels[Labels.service];
      // A label that is no id is an earlier version's (by service name): its service's own pass adopts it.
      if (svc && isServiceId(svc)) ids.add(svc);
    }
    for (const id of ids) application.enqueue(formatKey(serviceKey(id)));
    route(NETWORKS_KEY);
    route(INGRESS_KEY);
  };

  const unlisten = await listenDesired(o.sql, route);
  // A container of ours that dies, starts (the engine restarting a live one) or goes away wakes its service at once, not at the next resync.
  let engineSeen = false;
  const unwatch = o.runtime.watchContainers(
    instanceFilter(o.shortName),
    (e) => {
      const svc = e.labels[Labels.service];
      if (svc && isServiceId(svc) && ["die", "destroy", "stop", "kill", "oom", "start"].includes(e.action)) application.enqueue(formatKey(serviceKey(svc)));
    },
    () => {
      // The engine's event stream is back after a gap (dockerd restarted): look at everything now,
      // instead of when each key's backoff, grown while the engine was away, runs out.
      if (engineSeen) {
        o.log("[worker] the Docker engine is back: resyncing now");
        for (const r of runners) r.retryNow();
        resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
      }
      engineSeen = true;
    },
  );
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
    dataPlane,
    metrics,
    resync,
    async stop() {
      clearInterval(timer);
      unwatch();
      prober.stop();
      await unlisten();
      await Promise.all(runners.map((r) => r.stop()));
      metricsServer?.close();
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
