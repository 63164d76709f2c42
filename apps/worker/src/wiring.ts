import type { SwarmMode } from "./swarm-mode";
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import type { Db, Sql } from "@levelrail/db/client";
import { listenDesired } from "@levelrail/db/notify";
import type { Runtime } from "@levelrail/docker";
import type { SwarmPort } from "@levelrail/docker/swarm";
import type { CaddyAdmin } from "./controllers/ingress/caddy";
import type { ImageBuilder } from "@levelrail/docker/build";
import type { Keyring } from "@levelrail/secrets";
import { IMAGES_KEY, PREVIEW_SWEEP_KEY } from "@levelrail/spec/keys";
import { pgDatabaseStore } from "./database-store";
import { DesiredSnapshot } from "./desired-snapshot";
import { StatePublisher } from "./dataplane/publisher";
import { describe } from "./describe";
import type { Fence } from "./fence";
import { leadingRuntime } from "./leading-runtime";
import { pgFleetStore } from "./fleet-store";
import { pgHeartbeat } from "./heartbeat";
import { workerMetrics } from "./metrics";
import type { ProofPolicy } from "./controllers/domains/plan";
import type { SubnetPool } from "./network/pool";
import type { NotificationSettings } from "./controllers/notifications/reconcile";
import type { RunnerEvent } from "./reconcile/runner";
import { pgServiceStore } from "./store";
import { ensureWorkDir } from "./controllers/build/run";
import { startBackground } from "./wiring/background";
import { type Shared, controllers } from "./wiring/controllers";
import { resyncer, router } from "./wiring/route";
import { runnerFactory } from "./wiring/runners";

export interface WorkerOptions {
  db: Db;
  sql: Sql;
  runtime: Runtime;
  /** The same engine's swarm calls (docs/operating/nodes-and-swarm.md): nodes as operators asked. Absent: no node controller. */
  swarm?: SwarmPort;
  shortName: string;
  keyring: Keyring;
  resyncMs: number;
  probeIntervalMs?: number;
  /**
   * Builds of git sources: the engine's BuildKit builder, the key deploys are fingerprinted with,
   * the deadline (default 1800 s), the build slots (default 2) and the directory checkouts and
   * known-hosts files go in. Absent: every build fails saying this worker cannot build.
   */
  builds?: { builder: ImageBuilder; fingerprintKey: Buffer; timeoutSeconds?: number; slots?: number; workDir: string; pollTickMs?: number };
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
  /**
   * On a swarm manager whose ingress runs in the edge namespace (`@levelrail/docker/swarm/edge`):
   * each release runs as swarm services (docs/operating/nodes-and-swarm.md) through `swarm`. `join` joins the namespace to
   * an app's overlay, `meshDns` answers its address there (where its mesh DNS listens); `prober`
   * probes tasks from there. Absent: releases are containers on this engine.
   */
  swarmReleases?: SwarmMode["swarmReleases"];
  /** Caddy's admin API and the ports it serves domains on; absent: no ingress controller. */
  ingress?: { caddyAdmin: string | CaddyAdmin; httpPort: number; httpsPort: number | null } | undefined;
  /**
   * Domain ownership proofs: the installation's base domains (`LEVELRAIL_BASE_DOMAINS`, routed without
   * a proof, like `*.localhost`), the DNS server proofs are checked against (`LEVELRAIL_DNS_RESOLVER`;
   * absent: the system's) and the check schedule and grace period (defaults: DEFAULT_PROOF_POLICY).
   */
  domains?: { baseDomains?: string[]; resolver?: string | undefined; policy?: Partial<ProofPolicy>; now?: () => Date };
  /** Pulled-image collection: how many succeeded releases per service keep their image (3), how long a fresh pull is left alone (10 min), how often it runs besides after each successful deploy (hourly). */
  images?: { keepReleases?: number; graceMs?: number; intervalMs?: number };
  /** The panel's own host (`LEVELRAIL_PUBLIC_URL`'s): webhooks, SMTP and backup targets may not be it unless private targets are allowed. */
  panelHost?: string | undefined;
  /** `LEVELRAIL_ALLOW_PRIVATE_TARGETS`: webhooks, SMTP servers and backup targets may be loopback or private addresses; default false. */
  allowPrivateTargets?: boolean;
  /** The notifications controller's backoff, deadline and concurrency (defaults: 10 s … 1 h, 10 s, 4 organizations at once with 2 deliveries each). */
  notifications?: NotificationSettings;
  /** Loopback port for Prometheus metrics; absent: not served. */
  metricsPort?: number | undefined;
  /** Sampling of each service's active container: every 10 s, kept an hour, 50 stats calls at once by default. */
  containerMetrics?: { intervalMs?: number; retentionMs?: number; concurrency?: number };
  /**
   * Previews of pull requests (docs/operating/git-builds-and-previews.md#previews-of-pull-requests): the fingerprint key the deploy verbs need, the sweep's
   * interval (5 minutes) and the provider calls' timeout (10 s). Absent: no preview controller.
   */
  previews?: { fingerprintKey: Buffer; sweepEveryMs?: number; providerTimeoutMs?: number; pendingRecheckMs?: number } | undefined;
  log: (line: string) => void;
  onEvent?: (e: RunnerEvent) => void;
  /**
   * Aborted when this worker loses the leader lock (`runAsLeader`): every engine call that runs on
   * stops (`leading-runtime.ts`), and the writes of work in flight are fenced (`fence.ts`).
   */
  signal?: AbortSignal;
}

/**
 * Wires stores, runtime and controllers to their runners (wiring/controllers.ts); LISTEN, the
 * container informer's events, a resync (one engine call, wiring/route.ts) and timers feed them.
 */
export async function startWorker(given: WorkerOptions) {
  const o: WorkerOptions = given.signal ? { ...given, runtime: leadingRuntime(given.runtime, given.signal) } : given;
  const metrics = workerMetrics();
  const runnerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Fenced writes need the heartbeat row, which only a leader (a worker given its lead's signal) writes first.
  const fence: Fence | undefined = o.signal ? { shortName: o.shortName, runner: runnerId, signal: o.signal } : undefined;
  const { runner, runners } = runnerFactory(metrics, o.log);
  const store = pgServiceStore(o.db);
  const shared: Shared = {
    store,
    desired: new DesiredSnapshot(store),
    databaseStore: pgDatabaseStore(o.db, o.keyring, fence),
    fleet: pgFleetStore(o.db),
    metrics,
    dataPlane: new StatePublisher(o.dataPlaneStateFile),
    runnerId,
    fence,
    runner,
    engineBack: () => {},
  };
  // `levelrail doctor` reads it: this process leads, and when its last resync finished.
  const heartbeat = pgHeartbeat(o.db, o.shortName, runnerId, o.resyncMs);
  await heartbeat.leading();
  const c = controllers(o, shared);
  const route = router(c, shared.desired);
  const resync = resyncer({ ...shared, ...c, openBuilds: () => c.buildParts.store.openBuilds(), notificationOrgs: () => c.outbox.orgsWithWork(), route, passed: () => heartbeat.passed() });
  const resyncLogged = () => resync().catch((err: unknown) => o.log(`[resync] ${describe(err)}`));
  const unlisten = await listenDesired(o.sql, route);
  // The engine is back after a gap: look at everything now, not when each key's grown backoff runs out.
  shared.engineBack = () => {
    o.log("[worker] the Docker engine is back: resyncing now");
    for (const r of runners) r.retryNow();
    void resyncLogged();
  };
  await c.informer.start(); // the index is complete before the first pass reads it
  c.swarmTasks?.start();
  await resync();
  const timer = setInterval(() => void resyncLogged(), o.resyncMs);
  timer.unref();
  route(IMAGES_KEY);
  // The preview sweep runs at start and then on its own schedule (its pass requeues itself).
  route(PREVIEW_SWEEP_KEY);
  const imageTimer = setInterval(() => route(IMAGES_KEY), o.images?.intervalMs ?? 3_600_000);
  imageTimer.unref();
  const background = await startBackground(o, { informer: c.informer, metrics, dataPlane: shared.dataPlane });
  await ensureWorkDir(c.buildParts.workDir);
  c.buildParts.poller.start();
  return {
    application: c.application,
    databases: c.databases,
    networks: c.networks,
    images: c.images,
    ingress: c.ingress,
    domains: c.domains,
    previews: c.previews,
    builds: c.builds,
    nodes: c.nodes,
    poller: c.buildParts.poller,
    dataPlane: shared.dataPlane,
    metrics,
    notifications: c.notifications,
    sampler: background.sampler,
    resync,
    async stop() {
      clearInterval(timer);
      clearInterval(imageTimer);
      await background.stop();
      await c.buildParts.poller.stop();
      c.buildParts.running.stopAll();
      c.informer.stop();
      c.swarmTasks?.stop();
      c.prober.stop();
      c.databaseReadiness.stop();
      await unlisten();
      await Promise.all(runners.map((r) => r.stop()));
    },
  };
}
