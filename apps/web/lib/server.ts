import "server-only";
import { existsSync, readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { z } from "zod";
import { type Auth, createAuth } from "@levelrail/auth";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { Keyring, deriveKey, loadMasterKey } from "@levelrail/secrets";
import type { SecretsKit } from "@levelrail/services/env/sources";

/**
 * The web app's wiring: environment parsed with zod once, at the first request
 * that needs it (never at import or build time), and one database pool, master
 * key and better-auth instance per process.
 */
const envSchema = z.object({
  DATABASE_URL: z.string({ error: "DATABASE_URL is required" }).min(1, "DATABASE_URL is required"),
  LEVELRAIL_DATA_DIR: z.string().min(1).default("./.levelrail"),
  LEVELRAIL_MASTER_KEY: z.string().min(1).optional(),
  LEVELRAIL_PREVIOUS_MASTER_KEYS: z.string().optional(),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  LEVELRAIL_INGRESS_HTTP_PORT: z.coerce.number().int().min(1).max(65535).default(80),
});

export interface Server {
  db: Db;
  sql: Sql;
  auth: Auth;
  kit: SecretsKit;
  port: number;
  /** Where Caddy serves the services' domains over HTTP: the port of their links. */
  ingressHttpPort: number;
  dataDir: string;
  trustedOrigins: string[];
}

/** The monorepo root: the nearest folder above `from` whose package.json declares workspaces. */
function repoRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      const parsed: unknown = JSON.parse(readFileSync(pkg, "utf8"));
      if (typeof parsed === "object" && parsed !== null && "workspaces" in parsed) return dir;
    }
    if (dirname(dir) === dir) return resolve(from);
  }
}

function build(): Server {
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid environment for the web app:\n  ${lines.join("\n  ")}`);
  }
  const env = parsed.data;
  const dataDir = isAbsolute(env.LEVELRAIL_DATA_DIR)
    ? env.LEVELRAIL_DATA_DIR
    : resolve(repoRoot(process.cwd()), env.LEVELRAIL_DATA_DIR);
  const { db, sql } = createDb(env.DATABASE_URL);
  const masterKey = loadMasterKey({ envKey: env.LEVELRAIL_MASTER_KEY, dataDir });
  const keyring = new Keyring({ envKey: env.LEVELRAIL_MASTER_KEY, envPreviousKeys: env.LEVELRAIL_PREVIOUS_MASTER_KEYS, dataDir });
  const kit: SecretsKit = { keyring, fingerprintKey: deriveKey(masterKey, "fingerprint") };
  const trustedOrigins = [`http://localhost:${env.PORT}`, `http://127.0.0.1:${env.PORT}`];
  const auth = createAuth({ db, masterKey, baseURL: `http://localhost:${env.PORT}`, trustedOrigins });
  return { db, sql, auth, kit, port: env.PORT, ingressHttpPort: env.LEVELRAIL_INGRESS_HTTP_PORT, dataDir, trustedOrigins };
}

// On globalThis so that every route bundle (and dev reloads) share one pool.
const KEY = Symbol.for("levelrail.web.server");
type Holder = { [KEY]?: Server };

export function server(): Server {
  const holder = globalThis as Holder;
  holder[KEY] ??= build();
  return holder[KEY];
}
