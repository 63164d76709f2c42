/**
 * Soak: a real `npm start` (scripts/start.mjs, own data dir and ports), 5 services behind 5
 * domains under keep-alive load through Caddy, 100 consecutive deploys with the worker `kill -9`ed
 * at 10 random moments along the way; then a dockerd restart under load.
 *
 *   soak failures: <n> of <total>       (target 0)
 *   dockerd recovery: <ms> ms           (first to last failed request through a domain; target < 10,000)
 *
 * and at the end it checks: exactly one container per service, nothing of ours the desired state
 * does not explain, no release left deploying.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Panel, removeInstallation, restartDockerd } from "@levelrail/dataplane/test-panel";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { createApp } from "@levelrail/services/app/app";
import { deployService, listReleases } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { instanceFilter, isDataPlaneContainer } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { type RunningLoad, startLoad } from "@levelrail/testkit/load";
import { freePort, freePortPair } from "@levelrail/testkit/registry";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";

const DEPLOYS = Number(process.env.SOAK_DEPLOYS ?? 100);
const KILLS = Number(process.env.SOAK_KILLS ?? 10);
const SERVICES = ["s1", "s2", "s3", "s4", "s5"];
const IMAGES = [
  { tag: "levelrail-test/web:v1", body: "v1\n", healthy: true },
  { tag: "levelrail-test/web:v2", body: "v2\n", healthy: true },
] as const;

const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const short = `lrs${randomBytes(2).toString("hex")}`;
const dataDir = mkdtempSync(join(tmpdir(), "levelrail-soak-"));
const masterKey = randomBytes(32).toString("base64");
const domain = (s: string) => `${s}-${short}.localhost`;
for (const img of IMAGES) await ensureTestImage(runtime.docker, img);
const ingressPort = await freePort();
const panel = new Panel({
  ...process.env,
  DATABASE_URL: "",
  LEVELRAIL_DATA_DIR: dataDir,
  LEVELRAIL_SHORT_NAME: short,
  LEVELRAIL_MASTER_KEY: masterKey,
  PORT: String(await freePort()),
  LEVELRAIL_PG_PORT: String(await freePort()),
  LEVELRAIL_CADDY_ADMIN: `http://127.0.0.1:${await freePort()}`,
  LEVELRAIL_MESH_DNS_PORT: String(await freePortPair()), // the two mesh DNS replicas: P and P+1
  LEVELRAIL_METRICS_PORT: String(await freePort()),
  LEVELRAIL_INGRESS_HTTP_PORT: String(ingressPort),
  LEVELRAIL_INGRESS_TLS: "off",
  LEVELRAIL_DRAIN_MS: "500",
});

const problems: string[] = [];
let db: ReturnType<typeof createDb> | null = null;
try {
  await panel.start();
  db = createDb(readFileSync(join(dataDir, "database.url"), "utf8").trim());
  const ctx = await seedOrg(db.db, "soak", testKit(masterKey));
  await createApp({ ctx, envId: ctx.envId, input: { name: "soak" } });
  for (const name of SERVICES) {
    await createService({ ctx, envId: ctx.envId, input: { name, app: "soak", image: IMAGES[0].tag, port: 8080, healthPath: "/healthz", domains: [domain(name)] } });
    await deployService({ ctx, envId: ctx.envId, name, input: {} });
  }
  const succeeded = (name: string, releaseId: string) =>
    waitFor(`${name} release ${releaseId}`, async () => {
      const st = await getStatus({ ctx, envId: ctx.envId, name }).catch(() => undefined);
      if (st?.lastDeploy?.id === releaseId && st.lastDeploy.outcome === "failed") throw new Error(`${name}: ${st.message}`);
      return st?.lastDeploy?.id === releaseId && st.lastDeploy.outcome === "succeeded" && st.phase === "running" ? st : undefined;
    }, { timeoutMs: 180_000, intervalMs: 50 });
  for (const name of SERVICES) await succeeded(name, (await getStatus({ ctx, envId: ctx.envId, name })).lastDeploy!.id);

  // 100 deploys, round robin, v1 ↔ v2, under load; the worker killed at 10 random moments.
  const loads: RunningLoad[] = SERVICES.map((s) => startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: domain(s), concurrency: 1, maxRequests: 5_000_000, maxMs: 1_800_000, timeoutMs: 5000 }));
  const killAt = new Set<number>();
  while (killAt.size < Math.min(KILLS, DEPLOYS)) killAt.add(Math.floor(Math.random() * DEPLOYS));
  let kills = 0;
  const started = Date.now();
  for (let i = 0; i < DEPLOYS; i++) {
    const name = SERVICES[i % SERVICES.length]!;
    const rel = await deployService({ ctx, envId: ctx.envId, name, input: { image: IMAGES[(Math.floor(i / SERVICES.length) + 1) % 2]!.tag } });
    if (killAt.has(i)) {
      await new Promise((r) => setTimeout(r, Math.random() * 800)); // somewhere in the deploy
      process.kill(panel.childPid("worker"), "SIGKILL");
      kills++;
      await panel.logged("worker exited (SIGKILL); restarting it", kills);
    }
    await succeeded(name, rel.id);
  }
  const seconds = (Date.now() - started) / 1000;
  let total = 0;
  let failed = 0;
  const failures: string[] = [];
  for (const l of loads) {
    const r = await l.stop();
    total += r.total;
    failed += r.failed;
    failures.push(...r.failures.slice(0, 3));
  }
  console.log(`soak: ${DEPLOYS} deploys across ${SERVICES.length} services in ${seconds.toFixed(0)} s, worker killed ${kills} times`);
  console.log(`soak failures: ${failed} of ${total}`);
  if (failures.length) console.log(`  first failures: ${failures.slice(0, 5).join(" | ")}`);

  // What is left must be exactly what the desired state explains.
  const containers = (await runtime.listContainers(instanceFilter(short))).filter((c) => !isDataPlaneContainer(c));
  const services = new Map(await Promise.all(SERVICES.map(async (n) => [(await getStatus({ ctx, envId: ctx.envId, name: n })).activeContainer, n] as const)));
  for (const n of SERVICES) {
    const mine = containers.filter((c) => c.name.startsWith(`${short}-${n}-`));
    if (mine.length !== 1) problems.push(`${n} has ${mine.length} containers`);
  }
  for (const c of containers) if (!services.has(c.name)) problems.push(`container ${c.name} is not any service's active container`);
  const networks = await runtime.listNetworks(instanceFilter(short));
  if (networks.length !== 1) problems.push(`${networks.length} networks of ours (expected the one app's)`);
  const volumes = ((await runtime.docker.listVolumes({ filters: { label: instanceFilter(short) } })).Volumes ?? []).length;
  if (volumes) problems.push(`${volumes} volumes of ours`);
  for (const n of SERVICES) {
    const stuck = (await listReleases({ ctx, envId: ctx.envId, name: n })).filter((r) => r.outcome === "deploying" || r.outcome === "pending");
    if (stuck.length) problems.push(`${n} has ${stuck.length} releases still ${stuck[0]!.outcome}`);
  }
  console.log(`soak end state: ${problems.length ? problems.join("; ") : "one container per service, nothing unexplained, no release left deploying"}`);

  // dockerd restart under load: from the first failed request to the last one through a domain.
  const l = startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: domain("s1"), concurrency: 2, maxRequests: 5_000_000, maxMs: 180_000, timeoutMs: 2000 });
  await l.successes(200);
  await restartDockerd(runtime, join(dataDir, "dockerd.log"));
  await waitFor("s1 to serve again", async () => ((await l.successes(50, 60_000).then(() => true, () => false)) ? true : undefined), { timeoutMs: 120_000 });
  const r = await l.stop();
  const failedAt = r.samples.filter((x) => !x.ok).map((x) => x.at);
  const recovery = failedAt.length ? Math.max(...failedAt) - Math.min(...failedAt) : 0;
  console.log(`dockerd recovery: ${recovery.toFixed(0)} ms (${failedAt.length} failed requests while the engine and its containers restarted)`);
} finally {
  // The panel's own output (launcher, worker, web) for a look afterwards.
  writeFileSync(join(process.env.LEVELRAIL_DATA_DIR ?? tmpdir(), "soak-panel.log"), panel.output);
  await db?.sql.end({ timeout: 5 }).catch(() => {});
  await removeInstallation(panel, { runtime, shortName: short, dataDir });
}
if (problems.length) process.exitCode = 1;
