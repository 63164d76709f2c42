import { pgEnvStores } from "@levelrail/services/env/sources";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { IMAGES_KEY, INGRESS_KEY, databaseKey, formatKey, parseKey, serviceKey } from "@levelrail/spec/keys";
import { networkName } from "@levelrail/spec/naming";
import { ContainerInformer } from "../containers/informer";
import { wakeKeys } from "../containers/wake";
import { httpProber } from "../controllers/application/ports";
import { ProberManager } from "../controllers/application/prober";
import { RegistryConfirmations } from "../controllers/application/image";
import { applicationController } from "../controllers/application/reconcile";
import { engineFor } from "../controllers/database/engines";
import { s3ObjectStore } from "../controllers/database/object-store";
import { type DatabaseProbeTarget, databaseProbe } from "../controllers/database/readiness";
import { databaseController } from "../controllers/database/reconcile";
import { databaseAttacher } from "../controllers/database/server";
import { txtLookup } from "../controllers/domains/lookup";
import { DEFAULT_PROOF_POLICY } from "../controllers/domains/plan";
import { domainsController } from "../controllers/domains/reconcile";
import { pgProofStore } from "../domain-store";
import { buildsFor } from "./builds";
import { imageCleanupController } from "../controllers/image-cleanup/reconcile";
import { caddyAdmin } from "../controllers/ingress/caddy";
import type { IngressSettings } from "../controllers/ingress/desired";
import { ingressController } from "../controllers/ingress/reconcile";
import { previewsController } from "../controllers/previews/reconcile";
import { pgPreviewStore, providerStatus } from "../controllers/previews/store";
import { networkCleanupController } from "../controllers/network-cleanup/reconcile";
import { nodesController } from "../controllers/nodes/reconcile";
import { notificationTenants, notificationsController } from "../controllers/notifications/reconcile";
import { pgOutbox } from "../controllers/notifications/store";
import { swarmReleaseController } from "../controllers/swarm-release/controller";
import { watchSwarmTasks } from "../controllers/swarm-release/watch";
import { ensureAppOverlay } from "../network/app-overlay";
import { pgNodeChangeStore } from "../node-store";
import type { pgDatabaseStore } from "../database-store";
import type { DesiredSnapshot } from "../desired-snapshot";
import type { Fence } from "../fence";
import type { StatePublisher } from "../dataplane/publisher";
import { ACK_FRESH_MS, agentNodes, laggingEdges, readEdgeAcks } from "../dataplane/edge-acks";
import { EDGE_ACKS_FILE, nodeAgentName } from "@levelrail/spec/dataplane";
import { dirname, join } from "node:path";
import type { pgFleetStore } from "../fleet-store";
import { pgHookRecorder } from "../hook-store";
import type { workerMetrics } from "../metrics";
import { hostNameservers } from "../mesh/upstream";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL } from "../network/pool";
import type { Runner } from "../reconcile/runner";
import { keyTenants, serviceTenants } from "../reconcile/tenants";
import { pgServiceEvents } from "../service-events";
import type { pgServiceStore } from "../store";
import type { WorkerOptions } from "../wiring";
import type { runnerFactory } from "./runners";

/** What the controllers share: the stores, the data plane's state, the metrics and a runner factory. */
export interface Shared {
  store: ReturnType<typeof pgServiceStore>;
  /** The application controller's reads of desired state: a resync's batched in one query. */
  desired: DesiredSnapshot;
  databaseStore: ReturnType<typeof pgDatabaseStore>;
  fleet: ReturnType<typeof pgFleetStore>;
  metrics: ReturnType<typeof workerMetrics>;
  dataPlane: StatePublisher;
  /** This process's id: a backup another process marked running was cut short. */
  runnerId: string;
  /** The leader's token its in-flight writes are fenced by (absent: not run as a leader, no fence). */
  fence: Fence | undefined;
  runner: ReturnType<typeof runnerFactory>["runner"];
  /** Called when the engine's event stream is back after a gap (set once the resync exists). */
  engineBack: () => void;
}

/**
 * The container informer and every controller on its runner. A container of ours that dies, starts
 * or goes away wakes its service (or database) once the informer has taken the change in.
 */
export function controllers(o: WorkerOptions, s: Shared) {
  const informer = new ContainerInformer({
    runtime: o.runtime,
    shortName: o.shortName,
    log: o.log,
    onEvent(e) {
      for (const key of wakeKeys(e)) (key.kind === "service" ? application : databases).enqueue(formatKey(key));
    },
    // The engine's event stream is back after a gap (dockerd restarted) and everything was inspected again.
    onReconnected: () => s.engineBack(),
  });
  // Images this installation pulled and no kept release needs go: after each successful deploy and on a timer.
  const images = s.runner(
    imageCleanupController({
      runtime: o.runtime,
      store: s.fleet,
      keepReleases: o.images?.keepReleases ?? 3,
      graceMs: o.images?.graceMs ?? 600_000,
      log: o.log,
      onRemoved: (bytes) => s.metrics.imagesRemoved(bytes),
    }),
  );
  const serverDeps = { shortName: o.shortName, runtime: o.runtime, engine: engineFor(o.runtime) };
  // Readiness probes run outside the passes and wake their key: services over HTTP, database servers with pg_isready.
  const prober = new ProberManager({ probe: (t, ms) => httpProber.probe(t.url, ms), intervalMs: o.probeIntervalMs ?? 100, wake: (key) => application.enqueue(key) });
  const databaseReadiness = new ProberManager<DatabaseProbeTarget>({
    probe: databaseProbe(serverDeps),
    intervalMs: 250,
    probeTimeoutMs: 5000,
    retainMs: 3_600_000,
    wake: (key) => databases.enqueue(key),
  });
  // On a swarm, a database pinned to a node is a swarm service: the attacher waits for it to join.
  const pinnedSwarm = o.swarm && o.swarmReleases ? o.swarm : null;
  const attacher = databaseAttacher(
    { ...serverDeps, containers: informer, ...(pinnedSwarm ? { pinned: { swarm: pinnedSwarm, wake: (id: string) => databases.enqueue(formatKey(databaseKey(id))) } } : {}) },
    (id) => s.databaseStore.attachedTo(id),
  );
  const application: Runner = s.runner(
    o.swarm && o.swarmReleases ? swarmReleasesFor(o, s, o.swarm, o.swarmReleases, attacher) : applicationFor(o, s, { informer, prober, images, attacher }),
    (e) => {
      // A resync's batched row is taken only by a pass that starts after it was read.
      const key = parseKey(e.key);
      if (key?.kind === "service") {
        if (e.type === "start") s.desired.passStarted(key.id);
        else s.desired.passEnded(key.id);
      }
      o.onEvent?.(e);
    },
    // A resync's keys find their organization in its batched read; others ask (each is cached).
    serviceTenants(async (id) => s.desired.orgOf(id) ?? s.store.orgOf(id)),
  );
  // Managed databases and their backups: one runner, its keys `database:<id>` and `backup:<id>`.
  const databases: Runner = s.runner(
    databaseController({
      ...serverDeps,
      containers: informer,
      readiness: databaseReadiness,
      store: s.databaseStore,
      objects: (target) => s3ObjectStore(target, { policy: { allowPrivate: o.allowPrivateTargets === true, panelHost: o.panelHost } }),
      runner: s.runnerId,
      ...(o.signal ? { signal: o.signal } : {}),
      now: () => new Date(),
      wake: (key) => databases.enqueue(key),
      pullTimeoutSeconds: o.pullTimeoutSeconds ?? 600,
      log: o.log,
      serviceOrgs: (id: string) => s.store.orgOf(id),
      ...(pinnedSwarm ? { pinned: { swarm: pinnedSwarm } } : {}),
    }),
    undefined,
    // A stuck database of one organization never holds back another's: slots go fairly by organization.
    keyTenants({ database: (id) => s.databaseStore.orgOfDatabase(id), backup: (id) => s.databaseStore.orgOfBackup(id) }),
  );
  const networks = s.runner(networkCleanupController({ shortName: o.shortName, runtime: o.runtime, store: s.fleet }));
  const ingress = o.ingress ? s.runner(ingressFor(o, o.ingress, s)) : null;
  // Ownership proofs of domains: a proof that starts or stops counting wakes ingress.
  const domains = s.runner(
    domainsController({
      store: pgProofStore(o.db, o.domains?.baseDomains ?? []),
      lookup: txtLookup(o.domains?.resolver),
      policy: { ...DEFAULT_PROOF_POLICY, ...o.domains?.policy },
      now: o.domains?.now ?? (() => new Date()),
      routesChanged: () => ingress?.enqueue(formatKey(INGRESS_KEY)),
    }),
  );
  const previews = o.previews ? s.runner(previewsFor(o, o.previews, s)) : null;
  // On a swarm: a service whose tasks the swarm changed (a crash, a node's engine restarted) is woken,
  // as a container's event wakes it on one engine.
  const swarmTasks =
    o.swarm && o.swarmReleases ? watchSwarmTasks({
          swarm: o.swarm,
          shortName: o.shortName,
          wake: (id) => application.enqueue(formatKey(serviceKey(id))),
          // A pinned database's server whose task ended or moved is looked at within a tick, not at its next recheck.
          wakeDatabase: (id) => databases.enqueue(formatKey(databaseKey(id))),
          log: o.log,
        }) : null;
  // What operators asked of the swarm's nodes (drain, labels): only with a swarm port to apply it through.
  const nodes = o.swarm ? s.runner(nodesController({ swarm: o.swarm, store: pgNodeChangeStore(o.db), log: o.log })) : null;
  // Each organization's notification outbox: woken by NOTIFY when a delivery is queued, slots fair by organization.
  const outbox = pgOutbox(o.db);
  const notifications = s.runner(
    notificationsController({
      outbox,
      keyring: o.keyring,
      policy: { allowPrivate: o.allowPrivateTargets === true, panelHost: o.panelHost },
      log: o.log,
      ...o.notifications,
    }),
    undefined,
    notificationTenants,
    Math.max(1, o.notifications?.concurrency ?? 4),
  );
  // Builds of git sources: their own runner (builds never take a deploy's slot), slots fair by organization.
  const builds = buildsFor(o, s);
  return { informer, prober, databaseReadiness, application, databases, networks, images, ingress, domains, previews, nodes, swarmTasks, builds: builds.runner, buildParts: builds, notifications, outbox };
}

/**
 * On a swarm manager with the edge ingress: each release as swarm services (docs/operating/nodes-and-swarm.md), the app's
 * overlay made and the ingress namespace joined to it before a release's service is, its tasks
 * probed from that namespace, the data plane told the ready tasks.
 */
function swarmReleasesFor(o: WorkerOptions, s: Shared, swarm: SwarmPort, sr: NonNullable<WorkerOptions["swarmReleases"]>, attacher: ReturnType<typeof databaseAttacher>) {
  const stores = pgEnvStores(o.db, o.keyring);
  const pool = o.networkPool ?? { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS };
  return swarmReleaseController({
    deps: {
      shortName: o.shortName,
      swarm,
      images: o.runtime,
      serviceOrgs: (id) => s.store.orgOf(id),
      confirmations: new RegistryConfirmations(),
      async ensureNetwork(appId) {
        await ensureAppOverlay(o.runtime, swarm, o.shortName, appId, pool);
        await sr.join(networkName(o.shortName, appId));
      },
      // The databases run on the manager's engine; joined to the overlay, every node's tasks reach them.
      attachDatabases: (serviceId) => attacher.attach(serviceId),
      // Mesh names: the tasks ask the mesh DNS in the edge namespace, on its address on the app's overlay.
      async nameservers(appId) {
        const mesh = await sr.meshDns(networkName(o.shortName, appId));
        return mesh ? [mesh, ...(o.upstreamDns ?? hostNameservers())] : [];
      },
      prober: sr.prober,
      status: s.store,
      hooks: pgHookRecorder(o.db, s.fence),
      active: s.dataPlane,
      // Other nodes' edges (node agents) acknowledge each state they apply, through the manager's mesh DNS.
      // Every ready node that runs an agent is waited for, even one that has not asked lately (the overlay after a manager restart).
      edgesBehind: async (serviceId) =>
        laggingEdges(readEdgeAcks(join(dirname(o.dataPlaneStateFile), EDGE_ACKS_FILE)), s.dataPlane.generationOf(serviceId), Date.now(), ACK_FRESH_MS, await agentNodes(swarm, nodeAgentName(o.shortName))),
      drainMs: o.drainMs ?? 2000,
    },
    store: s.desired,
    envStores: stores,
    registry: stores,
  });
}

/** The application controller with everything it records to (hooks, deploys, pulls, events). */
function applicationFor(
  o: WorkerOptions,
  s: Shared,
  p: { informer: ContainerInformer; prober: ProberManager; images: Runner; attacher: ReturnType<typeof databaseAttacher> },
) {
  const stores = pgEnvStores(o.db, o.keyring);
  // The engine's name, asked once in the background (statuses name where the active container runs once it is known).
  let nodeName: string | undefined;
  o.swarm
    ?.swarmInfo()
    .then((i) => (nodeName = i.name || undefined))
    .catch((err: unknown) => o.log(`the engine did not say its name (statuses name no node until the worker restarts): ${err instanceof Error ? err.message : String(err)}`));
  return applicationController({
    nodeName: () => nodeName,
    shortName: o.shortName,
    runtime: o.runtime,
    containers: p.informer,
    store: s.desired,
    status: s.store,
    prober: p.prober,
    probeIntervalMs: o.probeIntervalMs ?? 100,
    envStores: stores,
    registry: stores,
    hooks: pgHookRecorder(o.db, s.fence),
    defaultHookTimeoutSeconds: o.defaultHookTimeoutSeconds ?? 300,
    pullTimeoutSeconds: o.pullTimeoutSeconds ?? 600,
    networkPool: o.networkPool ?? { pool: DEFAULT_NETWORK_POOL, bits: APP_SUBNET_BITS },
    mesh: s.dataPlane,
    upstreamDns: o.upstreamDns ?? hostNameservers(),
    drainMs: o.drainMs ?? 2000,
    deploys: {
      async recordDeploy(releaseId, outcome) {
        const ms = await s.fleet.recordDeploy(releaseId, outcome);
        if (ms !== null) s.metrics.deploySeconds.observe({ outcome }, ms / 1000);
        if (outcome === "succeeded") p.images.enqueue(formatKey(IMAGES_KEY)); // an older release may no longer be needed
      },
    },
    pulls: s.fleet,
    serviceOrgs: (id) => s.store.orgOf(id),
    confirmations: new RegistryConfirmations(),
    databases: p.attacher,
    events: pgServiceEvents(o.db),
  });
}

/** The preview controller: the organization's own verbs, run as the worker, and the providers' APIs under the address policy. */
function previewsFor(o: WorkerOptions, p: NonNullable<WorkerOptions["previews"]>, s: Shared) {
  const deps = {
    db: o.db,
    kit: { keyring: o.keyring, fingerprintKey: p.fingerprintKey },
    baseDomains: o.domains?.baseDomains ?? [],
    shortName: o.shortName,
    panelHost: o.panelHost,
    runner: s.runnerId,
  };
  const call = { policy: { allowPrivate: o.allowPrivateTargets === true, panelHost: o.panelHost }, timeoutMs: p.providerTimeoutMs ?? 10_000 };
  return previewsController({
    store: pgPreviewStore(deps, call),
    status: providerStatus(deps, call),
    now: () => new Date(),
    ...(p.sweepEveryMs !== undefined ? { sweepEveryMs: p.sweepEveryMs } : {}),
    ...(p.pendingRecheckMs !== undefined ? { pendingRecheckMs: p.pendingRecheckMs } : {}),
    log: o.log,
  });
}

/** The ingress controller: Caddy's one catch-all config, the data plane's domain map. */
function ingressFor(o: WorkerOptions, ingress: NonNullable<WorkerOptions["ingress"]>, s: Shared) {
  const settings: IngressSettings = { shortName: o.shortName, httpPort: ingress.httpPort, httpsPort: ingress.httpsPort, dataPlane: `127.0.0.1:${o.meshDnsPort}`, ...(o.swarmReleases ? { swarm: true } : {}) };
  return ingressController({
    settings,
    store: s.fleet,
    caddy: typeof ingress.caddyAdmin === "string" ? caddyAdmin(ingress.caddyAdmin) : ingress.caddyAdmin,
    dataPlane: { domains: () => s.dataPlane.current().domains, setDomains: (d) => s.dataPlane.setDomains(d) },
    recheckMs: 10_000,
    baseDomains: o.domains?.baseDomains ?? [],
  });
}
