#!/usr/bin/env node
// A long-lived copy of `npm test`'s set-up for working on the code: Docker, Caddy, the data plane and an
// embedded PostgreSQL stay up until Ctrl-C, and the environment the suites need is written to
// `.levelrail-dev/env` (`set -a; . .levelrail-dev/env; set +a` then run vitest or playwright by hand).
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "./lib/build.mjs";
import { startDatabase } from "./lib/database.mjs";
import { handleSignals, runMain } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { ensureMasterKeyFile, resolveDataDir } from "./lib/paths.mjs";
import { ensureDocker, ensureTestTools } from "./lib/system.mjs";

const DEV = { dataDir: ".levelrail-dev", pgPort: 54349, port: "3200", caddyAdmin: "http://127.0.0.1:2129", http: "18180", https: "18543", short: "lrdev", dns: "10173", metrics: "9574" };

handleSignals({ exitCode: 130 });
await runMain(async () => {
  const dataDir = resolveDataDir(process.env.LEVELRAIL_DEV_DATA_DIR, DEV.dataDir);
  mkdirSync(dataDir, { recursive: true });
  await ensureNpm();
  const [{ ensureCaddy }, { ensureDataPlane }] = await Promise.all([import("./lib/caddy.mjs"), import("./lib/dataplane.mjs")]);
  await ensureDocker({ dataDir });
  await ensureCaddy({ dataDir, admin: DEV.caddyAdmin, short: DEV.short, attached: true });
  const chromium = await ensureTestTools();
  const db = await startDatabase({ dataDir, port: DEV.pgPort, fresh: true });
  ensureMasterKeyFile(dataDir);
  const env = {
    DATABASE_URL: db.url,
    LEVELRAIL_DATA_DIR: dataDir,
    LEVELRAIL_CADDY_ADMIN: DEV.caddyAdmin,
    DOCKER_HOST: "unix:///var/run/docker.sock",
    PORT: DEV.port,
    LEVELRAIL_INGRESS_HTTP_PORT: DEV.http,
    LEVELRAIL_INGRESS_HTTPS_PORT: DEV.https,
    LEVELRAIL_SHORT_NAME: DEV.short,
    LEVELRAIL_CHROMIUM_PATH: chromium,
    LEVELRAIL_MESH_DNS_PORT: DEV.dns,
    LEVELRAIL_METRICS_PORT: DEV.metrics,
  };
  await ensureDataPlane({ dataDir, port: Number(DEV.dns), short: DEV.short, attached: true });
  await migrate(env);
  writeFileSync(join(dataDir, "env"), Object.entries(env).map(([k, v]) => `${k}=${v}`).join("\n") + "\n");
  console.log(`dev environment up; env in ${join(dataDir, "env")}`);
  await new Promise(() => {});
});
