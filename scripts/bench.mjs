#!/usr/bin/env node
// `npm run bench`: the set-up of `npm test` (its own data dir and database), then each benchmark
// under bench/, printing its figures. Benchmarks build their own images and clean up after themselves.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "./lib/build.mjs";
import { startDatabase } from "./lib/database.mjs";
import { handleSignals, run, runMain, shutdown } from "./lib/lifecycle.mjs";
import { ensureNpm } from "./lib/npm.mjs";
import { ensureMasterKeyFile, repoRoot, resolveDataDir } from "./lib/paths.mjs";
import { ensureDocker, ensureSwarmTools, ensureTestTools } from "./lib/system.mjs";

const BENCHES = ["deploy-latency", "cutover", "takeover", "soak", "scale", "disk", "backup", "logs", "metrics", "unattended", "database", "walls", "teams", "audit", "spec", "builds", "pages", "swarm"];

/** Benchmarks run as part of another's name too: `npm run bench -- teams` runs bench/audit.ts as well. */
const PART_OF = { audit: "teams" };

/** Benchmarks that need none of the set-up (no engine, Caddy or database): run alone, they skip it. */
const STANDALONE = new Set(["walls", "pages", "swarm"]);

/**
 * Benchmarks run only when named: `swarm` starts its own engines in network namespaces (as root,
 * with the tools `npm run test:swarm` installs), apart from the host's engine the others use.
 */
const NAMED_ONLY = new Set(["swarm"]);

handleSignals({ exitCode: 130 });
await runMain(async () => {
  const only = process.argv.slice(2);
  if (only.length > 0 && only.every((b) => STANDALONE.has(b))) {
    if (only.some((b) => NAMED_ONLY.has(b))) {
      await ensureSwarmTools();
      await ensureNpm();
    }
    for (const name of only) {
      console.log(`\n== ${name}`);
      await run(process.execPath, ["--import", "tsx", join(repoRoot, "bench", `${name}.ts`)], { cwd: repoRoot, env: process.env });
    }
    await shutdown(0);
    return;
  }
  const dataDir = resolveDataDir(process.env.LEVELRAIL_BENCH_DATA_DIR, ".levelrail-bench");
  const caddyAdmin = process.env.LEVELRAIL_CADDY_ADMIN ?? "http://127.0.0.1:2219";
  await ensureNpm();
  const { ensureCaddy } = await import("./lib/caddy.mjs"); // loads dockerode: once it is installed
  await ensureDocker({ dataDir });
  // LEVELRAIL_SHORT_NAME (a shared engine): the benchmarks' Docker objects carry it (Caddy: `<short>bench-caddy`).
  const short = process.env.LEVELRAIL_SHORT_NAME;
  await ensureCaddy({ dataDir, admin: caddyAdmin, short: short ? `${short}bench` : "lrbench", attached: true });
  await ensureTestTools();
  const db = await startDatabase({ dataDir, port: 54349 + 10, fresh: true });
  ensureMasterKeyFile(dataDir);
  const env = { ...process.env, DATABASE_URL: db.url, LEVELRAIL_DATA_DIR: dataDir, LEVELRAIL_CADDY_ADMIN: caddyAdmin };
  await migrate(env);
  for (const name of BENCHES.filter((b) => (only.length === 0 && !NAMED_ONLY.has(b)) || only.includes(b) || only.includes(PART_OF[b]))) {
    const file = join(repoRoot, "bench", `${name}.ts`);
    if (!existsSync(file)) continue;
    console.log(`\n== ${name}`);
    await run(process.execPath, ["--import", "tsx", file], { cwd: repoRoot, env });
  }
  await shutdown(0);
});
