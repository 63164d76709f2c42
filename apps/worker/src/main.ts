import { join, resolve } from "node:path";
import { z } from "zod";
import { Keyring } from "@levelrail/secrets";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { DEFAULT_SHORT_NAME } from "@levelrail/spec/naming";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { runAsLeader } from "./leader";
import { startWorker } from "./wiring";
import { APP_SUBNET_BITS, DEFAULT_NETWORK_POOL, parseCidr } from "./network/pool";

const env = z
  .object({
    DATABASE_URL: z.string().min(1, "DATABASE_URL is required (npm start sets it)"),
    LEVELRAIL_SHORT_NAME: z.string().regex(/^[a-z][a-z0-9-]{0,19}$/).default(DEFAULT_SHORT_NAME),
    DOCKER_HOST: z.string().optional(),
    LEVELRAIL_RESYNC_SECONDS: z.coerce.number().int().min(1).default(30),
    LEVELRAIL_DATA_DIR: z.string().default(".levelrail"),
    LEVELRAIL_MASTER_KEY: z.string().optional(),
    LEVELRAIL_PREVIOUS_MASTER_KEYS: z.string().optional(),
    LEVELRAIL_NETWORK_POOL: z
      .string()
      .default(DEFAULT_NETWORK_POOL)
      .refine((v) => {
        try {
          return parseCidr(v).bits <= APP_SUBNET_BITS;
        } catch {
          return false;
        }
      }, `LEVELRAIL_NETWORK_POOL must be an IPv4 CIDR of /${APP_SUBNET_BITS} or larger, like ${DEFAULT_NETWORK_POOL}`),
    LEVELRAIL_MESH_DNS_PORT: z.coerce.number().int().min(1).max(65535).default(10053),
    LEVELRAIL_DRAIN_MS: z.coerce.number().int().min(0).default(2000),
    LEVELRAIL_HOOK_TIMEOUT_SECONDS: z.coerce.number().int().min(1).default(300),
    LEVELRAIL_CADDY_ADMIN: z.string().url().default("http://127.0.0.1:2019"),
    LEVELRAIL_INGRESS_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(80),
    LEVELRAIL_INGRESS_HTTPS_PORT: z.coerce.number().int().min(1).max(65535).default(443),
    /** `off`: serve every domain on plain HTTP only (no certificates). */
    LEVELRAIL_INGRESS_TLS: z.enum(["on", "off"]).default("on"),
    LEVELRAIL_METRICS_PORT: z.coerce.number().int().min(1).max(65535).default(9464),
  })
  .parse(process.env);

const { db, sql } = createDb(env.DATABASE_URL);
const runtime = dockerRuntime({ dockerHost: env.DOCKER_HOST });
await runtime.ping();

const keyring = new Keyring({
  envKey: env.LEVELRAIL_MASTER_KEY,
  envPreviousKeys: env.LEVELRAIL_PREVIOUS_MASTER_KEYS,
  dataDir: resolve(env.LEVELRAIL_DATA_DIR),
});

const options = {
  keyring,
  db,
  sql,
  runtime,
  shortName: env.LEVELRAIL_SHORT_NAME,
  resyncMs: env.LEVELRAIL_RESYNC_SECONDS * 1000,
  networkPool: { pool: env.LEVELRAIL_NETWORK_POOL, bits: APP_SUBNET_BITS },
  meshDnsPort: env.LEVELRAIL_MESH_DNS_PORT,
  dataPlaneStateFile: join(resolve(env.LEVELRAIL_DATA_DIR), DATAPLANE_DIR, DATAPLANE_STATE_FILE),
  drainMs: env.LEVELRAIL_DRAIN_MS,
  defaultHookTimeoutSeconds: env.LEVELRAIL_HOOK_TIMEOUT_SECONDS,
  ingress: {
    caddyAdmin: env.LEVELRAIL_CADDY_ADMIN,
    httpPort: env.LEVELRAIL_INGRESS_HTTP_PORT,
    httpsPort: env.LEVELRAIL_INGRESS_TLS === "on" ? env.LEVELRAIL_INGRESS_HTTPS_PORT : null,
  },
  metricsPort: env.LEVELRAIL_METRICS_PORT,
  log: (line: string) => console.log(line),
};

// Only one worker of an installation reconciles at a time; a second one (another launcher on the
// same database, a leftover process) stands by and takes over when the leader dies.
const leader = runAsLeader({
  sql,
  lockName: `levelrail.worker.${env.LEVELRAIL_SHORT_NAME}`,
  log: options.log,
  async lead() {
    const worker = await startWorker(options);
    console.log(
      `worker ready (short name ${env.LEVELRAIL_SHORT_NAME}; data plane on 127.0.0.1:${env.LEVELRAIL_MESH_DNS_PORT}; metrics on http://127.0.0.1:${env.LEVELRAIL_METRICS_PORT}/metrics)`,
    );
    return () => worker.stop();
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
