import type { Db, Sql } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import type { Runtime } from "@levelrail/docker";
import type { Keyring } from "@levelrail/secrets";
import { pgEnvStores } from "@levelrail/services/env/sources";
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { IMAGES_KEY, INGRESS_KEY, NETWORKS_KEY, type ReconcileKey, databaseKey, formatKey, isServiceId, serviceKey } from "@levelrail/spec/keys";
import { Labels } from "@levelrail/spec/naming";
import { ContainerInformer } from "./containers/informer";
import { describe } from "./describe";
import { httpProber } from "./controllers/application/ports";
import { ProberManager } from "./controllers/application/prober";
import { applicationController } from "./controllers/application/reconcile";
import { caddyAdmin } from "./controllers/ingress/caddy";
import { engineFor } from "./controllers/database/engines";
import { s3ObjectStore } from "./controllers/database/object-store";
import { databaseController } from "./controllers/database/reconcile";
import { databaseAttacher } from "./controllers/database/server";
import { pgDatabaseStore } from "./database-store";
import type { IngressSettings } from "./controllers/ingress/desired";
import { ingressController } from "./controllers/ingress/reconcile";
import { imageCleanupController } from "./controllers/image-cleanup/reconcile";
import { networkCleanupController } from "./controllers/network-cleanup/reconcile";
import type { Controller } from "./reconcile/controller";
import { pgFleetStore } from "./fleet-store";
import { pgHeartbeat } from "./heartbeat";
import { pgHookRecorder } from "./hook-store";
import { StatePublisher } from "./dataplane/publisher";
import { hostNameservers } from "./mesh/upstream";
import { workerMetrics } from "./metrics";
import { DEFAULT_CONCURRENCY, DEFAULT_RETENTION_MS, MetricsSampler, sampleTargets } from "./metrics-sampler/sampler";
import { pgMetricStore } from "./metrics-sampler/store";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL, type SubnetPool } from "./network/pool";
import { Runner, type RunnerEvent } from "./reconcile/runner";
import { serviceTenants } from "./reconcile/tenants";
import { pgServiceEvents } from "./service-events";
import { pgServiceStore } from "./store";
import { type DispatcherOptions, NotificationDispatcher } from "./notifications/dispatch";

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
  /** The longest one image pull may take (seconds); default 600. */
  pullTimeoutSeconds?: number;
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
  /** Pulled-image collection: how many succeeded releases per service keep their image (3), how long a fresh pull is left alone (10 min), how often it runs besides after each successful deploy (hourly). */
  images?: { keepReleases?: number; graceMs?: number; intervalMs?: number };
  /** The panel's own host (`LEVELRAIL_PUBLIC_URL`'s): a webhook may not target it unless its channel allows private targets. */
  panelHost?: string | undefined;
  /** The notification dispatcher's pace, backoff and request limit (defaults: 2 s, 10 s … 1 h, 10 s). */
  notifications?: Pick<DispatcherOptions, "intervalMs" | "backoffMs" | "timeoutMs" | "lookup">;
  /** Loopback port for Prometheus metrics; absent: not served. */
  metricsPort?: number | undefined;
  /** Sampling of each service's active container: every 10 s, kept an hour, 50 stats calls at once by default. */
  containerMetrics?: { intervalMs?: number; retentionMs?: number; concurrency?: number };
  log: (line: string) => void;
  onEvent?: (e: RunnerEvent) => void;
}

/**
 * Wires stores, runtime and controllers to their runners; LISTEN, the container informer's events, a
 * resync (one engine call) and timers feed them.
 */
export async function startWorker(o: WorkerOptions) {
  const store = pgServiceStore(o.db);
  const databaseStore = pgDatabaseStore(o.db, o.keyring);
  // This process: a backup still marked running by another one was cut short when that one stopped.
  const runnerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const fleet = pgFleetStore(o.db);
  const metrics = workerMetrics();
  const dataPlane = new StatePublisher(o.dataPlaneStateFile);
  // `levelrail doctor` reads it: this process leads, and when its last resync finished.
  const heartbeat = pgHeartbeat(o.db, o.shortName, runnerId, o.resyncMs);
  await heartbeat.leading();

  const runners: Runner[] = [];
  const runner = (controller: Controller, extraLog?: (e: RunnerEvent) => void, tenantOf?: (key: string) => string | Promise<string>) => {
    const r: Runner = new Runner(controller, {
      ...(tenantOf ? { tenantOf } : {}),
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

  // Every container of this instance in memory: the application controller reads it instead of the
  // engine. A container of ours that dies, starts (the engine restarting a live one) or goes away
  // wakes its service once the index has taken the change in, not at the next resync.
  let engineBack = () => {};
  const informer = new ContainerInformer({
    runtime: o.runtime,
    shortName: o.shortName,
    log: o.log,
    onEvent(e) {
      const svc = e.labels[Labels.service];
      if (svc && isServiceId(svc) && WAKE.some((a) => e.action === a)) application.enqueue(formatKey(serviceKey(svc)));
    },
    // The engine's event stream is back after a gap (dockerd restarted) and everything was inspected
    // again: look at everything now, instead of when each key's backoff, grown meanwhile, runs out.
    onReconnected: () => engineBack(),
  });

  // Images this installation pulled and no kept release needs go: after each successful deploy and on a timer.
  const images = runner(
    imageCleanupController({
      runtime: o.runtime,
      store: fleet,
      keepReleases: o.images?.keepReleases ?? 3,
      graceMs: o.images?.graceMs ?? 600_000,
      log: o.log,
      onRemoved: (bytes) => metrics.imagesRemoved(bytes),
    }),
  );

  const stores = pgEnvStores(o.db, o.keyring);
  const serverDeps = { shortName: o.shortName, runtime: o.runtime, engine: engineFor(o.runtime) };
  // Readiness probes run outside the passes and wake the service's key (the runner is made just below).
  const prober = new ProberManager({ prober: httpProber, intervalMs: o.probeIntervalMs ?? 100, wake: (key) => application.enqueue(key) });
  const application: Runner = runner(
    applicationController({
      shortName: o.shortName,
      runtime: o.runtime,
      containers: informer,
      store,
      status: store,
      prober,
      probeIntervalMs: o.probeIntervalMs ?? 100,
      envStores: stores,
      registry: stores,
      hooks: pgHookRecorder(o.db),
      defaultHookTimeoutSeconds: o.defaultHookTimeoutSeconds ?? 300,
      pullTimeoutSeconds: o.pullTimeoutSeconds ?? 600,
      networkPool: o.networkPool ?? { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS },
      mesh: dataPlane,
      upstreamDns: o.upstreamDns ?? hostNameservers(),
      drainMs: o.drainMs ?? 2000,
      deploys: {
        async recordDeploy(releaseId, outcome) {
          const ms = await fleet.recordDeploy(releaseId, outcome);
          if (ms !== null) metrics.deploySeconds.observe({ outcome }, ms / 1000);
          if (outcome === "succeeded") images.enqueue(formatKey(IMAGES_KEY)); // an older release may no longer be needed
        },
      },
      pulls: fleet,
      databases: databaseAttacher(serverDeps, (id) => databaseStore.attachedTo(id)),
      events: pgServiceEvents(o.db),
    }),
    o.onEvent,
    // Slots are shared fairly across organizations: one with many services deploying does not starve another.
    serviceTenants((id) => store.orgOf(id)),
  );
  // Managed databases and their backups: one runner, its keys `database:<id>` and `backup:<id>`.
  const databases: Runner = runner(
    databaseController({
      ...serverDeps,
      store: databaseStore,
      objects: s3ObjectStore,
      runner: runnerId,
      now: () => new Date(),
      wake: (key) => databases.enqueue(key),
      pullTimeoutSeconds: o.pullTimeoutSeconds ?? 600,
      log: o.log,
    }),
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
      case "database":
      case "backup":
        databases.enqueue(formatKey(key));
        return;
      case "networks":
        networks.enqueue(formatKey(key));
        return;
      case "images":
        images.enqueue(formatKey(key));
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
    // The informer's relist: one engine call, and an inspect only of what changed behind its back.
    // Without the engine it throws, as the listing always did: no pass runs on an index gone stale.
    await informer.relist();
    const known = await store.listServiceIds();
    // Containers of services that no longer exist are reconciled too, so they get removed.
    // A label that is no id is an earlier version's (by service name): its service's own pass adopts it.
    const ids = new Set([...known, ...[...informer.serviceIds()].filter(isServiceId)]);
    // A service deleted while no worker ran: its data-plane entry goes.
    await dataPlane.retain(new Set(known));
    for (const id of ids) application.enqueue(formatKey(serviceKey(id)));
    // Every database (and every deleted one still to tear down); their passes wake their open backups.
    for (const id of await databaseStore.databaseIds()) route(databaseKey(id));
    route(NETWORKS_KEY);
    route(INGRESS_KEY);
    await heartbeat.passed();
  };

  const unlisten = await listenDesired(o.sql, route);
  engineBack = () => {
    o.log("[worker] the Docker engine is back: resyncing now");
    for (const r of runners) r.retryNow();
    resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
  };
  // The index is complete before the first pass reads it.
  await informer.start();
  await resync();
  const timer = setInterval(() => {
    resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
  }, o.resyncMs);
  timer.unref();
  const collect = () => route(IMAGES_KEY);
  collect();
  const imageTimer = setInterval(collect, o.images?.intervalMs ?? 3_600_000);
  imageTimer.unref();
  const metricsServer = o.metricsPort === undefined ? null : await metrics.serve(o.metricsPort);
  // Notifications enqueued where events happen are sent (and retried) from here.
  const notifications = new NotificationDispatcher({ db: o.db, keyring: o.keyring, panelHost: o.panelHost, log: o.log, ...o.notifications });
  notifications.start();

  // CPU, memory and network of every service's active container: the status rows name it, the
  // informer says whether it runs (and its id); only the stats calls go to the engine.
  const metricStore = pgMetricStore(o.db);
  const sampler = new MetricsSampler({
    runtime: o.runtime,
    targets: sampleTargets(() => metricStore.activeServices(), informer),
    store: metricStore,
    intervalMs: o.containerMetrics?.intervalMs ?? 10_000,
    retentionMs: o.containerMetrics?.retentionMs ?? DEFAULT_RETENTION_MS,
    concurrency: o.containerMetrics?.concurrency ?? DEFAULT_CONCURRENCY,
    onRound: (taken) => metrics.containerSamples(taken),
    log: o.log,
  });
  sampler.start();

  return {
    application,
    databases,
    networks,
    images,
    ingress,
    dataPlane,
    metrics,
    notifications,
    sampler,
    resync,
    async stop() {
      await notifications.stop();
      clearInterval(timer);
      await sampler.stop();
      clearInterval(imageTimer);
      informer.stop();
      prober.stop();
      await unlisten();
      await Promise.all(runners.map((r) => r.stop()));
      metricsServer?.close();
    },
  };
}

/** Container events that wake the container's service. */
const WAKE = ["die", "destroy", "stop", "kill", "oom", "start"];
