// The suite's environment, parsed once with zod. `npm test` (scripts/test.mjs) passes DATABASE_URL,
// PORT, LEVELRAIL_DATA_DIR, LEVELRAIL_SHORT_NAME, the Caddy and ingress settings and the Chromium
// path; everything else gets a test-only default apart from `npm start`'s, so a running instance
// (and its worker's mesh DNS and metrics ports) is left alone.
import { dirname, isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

const port = z.coerce.number().int().min(1).max(65535);

const schema = z.object({
  DATABASE_URL: z
    .string({ error: "DATABASE_URL is required: a migrated PostgreSQL database (npm test sets it)" })
    .min(1, "DATABASE_URL is required"),
  PORT: port.default(3100),
  LEVELRAIL_DATA_DIR: z.string().min(1).default(".levelrail-test"),
  LEVELRAIL_SHORT_NAME: z.string().regex(/^[a-z][a-z0-9-]{0,19}$/).default("lrtest"),
  LEVELRAIL_MASTER_KEY: z.string().min(1).optional(),
  LEVELRAIL_CHROMIUM_PATH: z.string().min(1).default("/usr/bin/chromium"),
  LEVELRAIL_CADDY_ADMIN: z.url().default("http://127.0.0.1:2119"),
  LEVELRAIL_INGRESS_HTTP_PORT: port.default(18080),
  LEVELRAIL_INGRESS_HTTPS_PORT: port.default(18443),
  LEVELRAIL_MESH_DNS_PORT: port.default(10153),
  LEVELRAIL_METRICS_PORT: port.default(9564),
  /** The loopback UDP port of the DNS server the domain-ownership spec runs; the stack's worker checks proofs there only (nobody else is asked). */
  LEVELRAIL_TEST_DNS_PORT: port.default(10190),
});

export interface E2eEnv {
  databaseUrl: string;
  port: number;
  /** Where the web app answers, e.g. http://127.0.0.1:3100. */
  baseURL: string;
  /** Absolute; resolved against the repo root like the web app does. */
  dataDir: string;
  shortName: string;
  masterKey: string | undefined;
  chromiumPath: string;
  /** Caddy's admin API, e.g. http://127.0.0.1:2119 (started by `npm test`'s set-up). */
  caddyAdmin: string;
  /** The port Caddy serves the services' domains on over plain HTTP. */
  ingressHttpPort: number;
  /** Where the stack's worker checks domain ownership records (`LEVELRAIL_DNS_RESOLVER`): a spec's own DNS server binds it. */
  dnsPort: number;
  /** Everything the stack (scripts/serve.mjs: the worker and `next start`) is started with. */
  serverEnv: Record<string, string>;
}

let parsed: E2eEnv | undefined;

export function e2eEnv(): E2eEnv {
  if (parsed) return parsed;
  const r = schema.safeParse(process.env);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid environment for the end-to-end tests:\n  ${lines.join("\n  ")}`);
  }
  const e = r.data;
  const dataDir = isAbsolute(e.LEVELRAIL_DATA_DIR) ? e.LEVELRAIL_DATA_DIR : resolve(repoRoot, e.LEVELRAIL_DATA_DIR);
  parsed = {
    databaseUrl: e.DATABASE_URL,
    port: e.PORT,
    baseURL: `http://127.0.0.1:${e.PORT}`,
    dataDir,
    shortName: e.LEVELRAIL_SHORT_NAME,
    masterKey: e.LEVELRAIL_MASTER_KEY,
    chromiumPath: e.LEVELRAIL_CHROMIUM_PATH,
    caddyAdmin: e.LEVELRAIL_CADDY_ADMIN,
    ingressHttpPort: e.LEVELRAIL_INGRESS_HTTP_PORT,
    dnsPort: e.LEVELRAIL_TEST_DNS_PORT,
    serverEnv: {
      DATABASE_URL: e.DATABASE_URL,
      PORT: String(e.PORT),
      LEVELRAIL_DATA_DIR: dataDir,
      LEVELRAIL_SHORT_NAME: e.LEVELRAIL_SHORT_NAME,
      LEVELRAIL_CADDY_ADMIN: e.LEVELRAIL_CADDY_ADMIN,
      LEVELRAIL_INGRESS_HTTP_PORT: String(e.LEVELRAIL_INGRESS_HTTP_PORT),
      LEVELRAIL_INGRESS_HTTPS_PORT: String(e.LEVELRAIL_INGRESS_HTTPS_PORT),
      LEVELRAIL_MESH_DNS_PORT: String(e.LEVELRAIL_MESH_DNS_PORT),
      LEVELRAIL_METRICS_PORT: String(e.LEVELRAIL_METRICS_PORT),
      LEVELRAIL_DNS_RESOLVER: `127.0.0.1:${e.LEVELRAIL_TEST_DNS_PORT}`,
      // The suite's webhook receivers, SMTP and S3 servers are on loopback. The default (false) is
      // proven by the unit and integration tests.
      LEVELRAIL_ALLOW_PRIVATE_TARGETS: "true",
    },
  };
  return parsed;
}
