import { DEFAULT_NETWORK_POOL, databaseUrl, envSchema, parseEnv, publicUrl, requiredDatabaseUrl } from "@levelrail/config/env";
import { secretsKitFromEnv } from "@levelrail/config/secrets";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { dockerSwarm } from "@levelrail/docker/swarm";
import { dockerImageBuilder } from "@levelrail/docker/build";
import { join } from "node:path";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE, EDGE_CADDY_FILE } from "@levelrail/spec/dataplane";
import { OVERLAY_IPSEC_FILE, readOverlayIpsec } from "@levelrail/docker/swarm/ipsec";
import { runAsLeader } from "./leader";
import { startWorker } from "./wiring";
import { swarmMode } from "./swarm-mode";
import { startAuditRetention } from "./audit-retention";
import { APP_SUBNET_BITS, parseCidr } from "./network/pool";

const schema = envSchema
  .pick({
    LEVELRAIL_SHORT_NAME: true,
    DOCKER_HOST: true,
    LEVELRAIL_RESYNC_SECONDS: true,
    LEVELRAIL_DATA_DIR: true,
    LEVELRAIL_MASTER_KEY: true,
    LEVELRAIL_PREVIOUS_MASTER_KEYS: true,
    LEVELRAIL_MESH_DNS_PORT: true,
    LEVELRAIL_DRAIN_MS: true,
    LEVELRAIL_HOOK_TIMEOUT_SECONDS: true,
    LEVELRAIL_PULL_TIMEOUT_SECONDS: true,
    LEVELRAIL_BUILD_TIMEOUT_SECONDS: true,
    LEVELRAIL_BUILD_SLOTS: true,
    LEVELRAIL_IMAGE_KEEP_RELEASES: true,
    LEVELRAIL_AUDIT_RETENTION_DAYS: true,
    LEVELRAIL_CADDY_ADMIN: true,
    LEVELRAIL_INGRESS_HTTP_PORT: true,
    LEVELRAIL_INGRESS_HTTPS_PORT: true,
    LEVELRAIL_INGRESS_TLS: true,
    LEVELRAIL_METRICS_PORT: true,
    LEVELRAIL_PUBLIC_URL: true,
    LEVELRAIL_ALLOW_PRIVATE_TARGETS: true,
    PORT: true,
    LEVELRAIL_METRICS_INTERVAL_SECONDS: true,
    DATABASE_PASSWORD_FILE: true,
    LEVELRAIL_BASE_DOMAINS: true,
    LEVELRAIL_DNS_RESOLVER: true,
  })
  .extend({
    DATABASE_URL: requiredDatabaseUrl,
    LEVELRAIL_NETWORK_POOL: envSchema.shape.LEVELRAIL_NETWORK_POOL.refine((v) => {
      try {
        return parseCidr(v).bits <= APP_SUBNET_BITS;
      } catch {
        return false;
      }
    }, `must be an IPv4 CIDR of /${APP_SUBNET_BITS} or larger, like ${DEFAULT_NETWORK_POOL}`),
  });
const env = (() => {
  try {
    return parseEnv(schema, process.env, "the worker");
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
})();

const { db, sql } = createDb(databaseUrl(env));
const runtime = dockerRuntime({ dockerHost: env.DOCKER_HOST });
await runtime.ping();

const { keyring, fingerprintKey } = secretsKitFromEnv(env);
// App and database overlays are encrypted between the nodes where the manager's kernel can (the launcher's probe, beside the data plane's state).
const overlayIpsecFile = join(env.LEVELRAIL_DATA_DIR, DATAPLANE_DIR, OVERLAY_IPSEC_FILE);
const swarmPort = dockerSwarm({ dockerHost: env.DOCKER_HOST, encryptOverlays: () => readOverlayIpsec(overlayIpsecFile)?.supported === true });
// On a swarm manager with the edge ingress: releases as swarm services (docs/operating/nodes-and-swarm.md); else containers here.
const swarm = await swarmMode(runtime.docker, runtime, swarmPort, env.LEVELRAIL_SHORT_NAME, join(env.LEVELRAIL_DATA_DIR, DATAPLANE_DIR, EDGE_CADDY_FILE));
if (swarm) console.log("[worker] this engine is a swarm manager with the edge ingress: releases run as swarm services");

const options = {
  keyring,
  db,
  sql,
  runtime,
  swarm: swarmPort,
  shortName: env.LEVELRAIL_SHORT_NAME,
  resyncMs: env.LEVELRAIL_RESYNC_SECONDS * 1000,
  networkPool: { pool: env.LEVELRAIL_NETWORK_POOL, bits: APP_SUBNET_BITS },
  meshDnsPort: env.LEVELRAIL_MESH_DNS_PORT,
  dataPlaneStateFile: join(env.LEVELRAIL_DATA_DIR, DATAPLANE_DIR, DATAPLANE_STATE_FILE),
  drainMs: env.LEVELRAIL_DRAIN_MS,
  defaultHookTimeoutSeconds: env.LEVELRAIL_HOOK_TIMEOUT_SECONDS,
  pullTimeoutSeconds: env.LEVELRAIL_PULL_TIMEOUT_SECONDS,
  images: { keepReleases: env.LEVELRAIL_IMAGE_KEEP_RELEASES },
  builds: {
    builder: dockerImageBuilder(runtime.docker),
    fingerprintKey,
    timeoutSeconds: env.LEVELRAIL_BUILD_TIMEOUT_SECONDS,
    slots: env.LEVELRAIL_BUILD_SLOTS,
    workDir: join(env.LEVELRAIL_DATA_DIR, "builds"),
  },
  ingress: swarm
    ? // In the edge namespace Caddy serves on 80 and 443, published on the ingress ports.
      { caddyAdmin: swarm.caddyAdmin, httpPort: 80, httpsPort: env.LEVELRAIL_INGRESS_TLS === "on" ? 443 : null }
    : {
        caddyAdmin: env.LEVELRAIL_CADDY_ADMIN,
        httpPort: env.LEVELRAIL_INGRESS_HTTP_PORT,
        httpsPort: env.LEVELRAIL_INGRESS_TLS === "on" ? env.LEVELRAIL_INGRESS_HTTPS_PORT : null,
      },
  ...(swarm ? { swarmReleases: swarm.swarmReleases } : {}),
  domains: { baseDomains: env.LEVELRAIL_BASE_DOMAINS, resolver: env.LEVELRAIL_DNS_RESOLVER },
  metricsPort: env.LEVELRAIL_METRICS_PORT,
  panelHost: new URL(publicUrl(env)).hostname,
  allowPrivateTargets: env.LEVELRAIL_ALLOW_PRIVATE_TARGETS,
  containerMetrics: { intervalMs: env.LEVELRAIL_METRICS_INTERVAL_SECONDS * 1000 },
  // Previews of pull requests: the deploy verbs fingerprint a preview's configuration like the web app's.
  previews: { fingerprintKey },
  log: (line: string) => console.log(line),
};

// Only one worker of an installation reconciles at a time; a second one (another launcher on the
// same database, a leftover process) stands by and takes over when the leader dies.
const leader = runAsLeader({
  // Its own connection: a session cut off under it never leaves the worker's pool broken.
  lockClient: () => createDb(databaseUrl(env), { max: 1 }).sql,
  lockName: `levelrail.worker.${env.LEVELRAIL_SHORT_NAME}`,
  log: options.log,
  async lead(signal) {
    const worker = await startWorker({ ...options, signal });
    const retention = startAuditRetention({ db, days: env.LEVELRAIL_AUDIT_RETENTION_DAYS, log: options.log });
    console.log(
      `worker ready (short name ${env.LEVELRAIL_SHORT_NAME}; data plane on 127.0.0.1:${env.LEVELRAIL_MESH_DNS_PORT}; metrics on http://127.0.0.1:${env.LEVELRAIL_METRICS_PORT}/metrics)`,
    );
    return async () => {
      retention.stop();
      await worker.stop();
    };
  },
});

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  await leader.stop();
  await sql.end({ timeout: 5 });
  process.exit(0);
};
process.on("SIGINT", () => void shutdown());
process.on("SIGTERM", () => void shutdown());
