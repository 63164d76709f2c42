/**
 * Unattended: a real `npm start` (own data dir, ports and short name), two services behind two
 * domains under keep-alive load through Caddy, then the faults nobody is there to fix:
 *
 *   dataplane kill failures: <n> of <total>      (each mesh DNS replica, then Caddy, kill -9ed; goal 0, at most the 2 s before it is back)
 *   dataplane freeze failures: <n> of <total>    (a mesh DNS replica SIGSTOPped 10 s; goal 0), and the slowest request
 *   dockerd restart failures (live-restore): <n> of <total>   (goal 0)
 *   reboot to serving: <ms>                      (every process kill -9ed, dockerd stopped and started; from dockerd answering to every domain serving; goal < 10,000)
 *   warm start: <ms>                             (npm start again with everything installed and the data plane running; goal < 3,000)
 */
import { randomBytes } from "node:crypto";
import { spawn } from "node:child_process";
import { mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Panel, pidsOf, removeInstallation } from "@levelrail/dataplane/test-panel";
import { daemonJsonLiveRestore, dataPlaneProcess, killAndTimeBack, liveRestore, restartEngine, simulateReboot } from "@levelrail/dataplane/test-unattended";
import { createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { DataPlaneRoles } from "@levelrail/spec/naming";
import { getByHost } from "@levelrail/testkit/http";
import { ensureTestImage } from "@levelrail/testkit/images";
import { type LoadResult, type RunningLoad, startLoad } from "@levelrail/testkit/load";
import { freePort, freePortPair } from "@levelrail/testkit/registry";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";

const IMAGE = { tag: "levelrail-test/web:v1", body: "v1\n", healthy: true } as const;
const SERVICES = ["u1", "u2"];
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const docker = runtime.docker;
const short = `lru${randomBytes(2).toString("hex")}`;
const dataDir = mkdtempSync(join(tmpdir(), "levelrail-unattended-"));
const masterKey = randomBytes(32).toString("base64");
const domain = (s: string) => `${s}-${short}.localhost`;
await ensureTestImage(docker, IMAGE);
const ingressPort = await freePort();
const meshPort = await freePortPair(); // the two mesh DNS replicas: P and P+1
const env = {
  ...process.env,
  DATABASE_URL: "",
  LEVELRAIL_DATA_DIR: dataDir,
  LEVELRAIL_SHORT_NAME: short,
  LEVELRAIL_MASTER_KEY: masterKey,
  PORT: String(await freePort()),
  LEVELRAIL_PG_PORT: String(await freePort()),
  LEVELRAIL_CADDY_ADMIN: `http://127.0.0.1:${await freePort()}`,
  LEVELRAIL_MESH_DNS_PORT: String(meshPort),
  LEVELRAIL_METRICS_PORT: String(await freePort()),
  LEVELRAIL_INGRESS_HTTP_PORT: String(ingressPort),
  LEVELRAIL_INGRESS_TLS: "off",
};
const panel = new Panel(env);

const loads = (): RunningLoad[] =>
  SERVICES.map((s) => startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: domain(s), concurrency: 2, maxRequests: 5_000_000, maxMs: 300_000, timeoutMs: 3000 }));
const sum = (rs: LoadResult[]) => ({
  total: rs.reduce((n, r) => n + r.total, 0),
  failed: rs.reduce((n, r) => n + r.failed, 0),
  slowest: Math.max(0, ...rs.flatMap((r) => r.samples.map((s) => s.ms))),
  failures: rs.flatMap((r) => r.failures).slice(0, 3),
});
/** One request through Caddy on a fresh connection succeeds for every domain. */
const serving = async () => {
  for (const s of SERVICES) {
    const ok = await getByHost(ingressPort, domain(s)).then((r) => r.status === 200, () => false);
    if (!ok) return false;
  }
  return true;
};
const meshAnswers = (replica: number) => async () =>
  fetch(`http://127.0.0.1:${meshPort + replica}/healthz`, { signal: AbortSignal.timeout(500) }).then((r) => r.ok, () => false);

let db: ReturnType<typeof createDb> | null = null;
try {
  await panel.start();
  db = createDb(readFileSync(join(dataDir, "database.url"), "utf8").trim());
  const ctx = await seedOrg(db.db, "unattended", testKit(masterKey));
  await createApp({ ctx, envId: ctx.envId, input: { name: "u" } });
  for (const name of SERVICES) {
    await createService({ ctx, envId: ctx.envId, input: { name, app: "u", image: IMAGE.tag, port: 8080, healthPath: "/healthz", domains: [domain(name)] } });
    await deployService({ ctx, envId: ctx.envId, name, input: {} });
  }
  for (const name of SERVICES) {
    await waitFor(`${name} to run`, async () => ((await getStatus({ ctx, envId: ctx.envId, name })).phase === "running" ? true : undefined), { timeoutMs: 120_000 });
  }
  await waitFor("every domain to serve", async () => ((await serving()) ? true : undefined), { timeoutMs: 60_000 });

  // kill -9 of each mesh DNS replica, then of Caddy, under load.
  let ls = loads();
  for (const l of ls) await l.successes(200);
  const back: string[] = [];
  for (const replica of ["0", "1"]) {
    const p = await dataPlaneProcess(docker, short, DataPlaneRoles.meshDns, replica);
    back.push(`mesh DNS ${replica} ${(await killAndTimeBack(docker, p, meshAnswers(Number(replica)))).toFixed(0)} ms`);
    for (const l of ls) await l.successes(200);
  }
  back.push(`caddy ${(await killAndTimeBack(docker, await dataPlaneProcess(docker, short, DataPlaneRoles.ingress), serving)).toFixed(0)} ms`);
  for (const l of ls) await l.successes(200);
  let r = sum(await Promise.all(ls.map((l) => l.stop())));
  console.log(`dataplane kill failures: ${r.failed} of ${r.total} (back after: ${back.join(", ")}; slowest request ${r.slowest.toFixed(0)} ms)`);
  if (r.failures.length) console.log(`  e.g. ${r.failures.join(" | ")}`);

  // SIGSTOP of mesh DNS replica 0 for 10 s under load: its sibling kills it, the engine restarts it.
  ls = loads();
  for (const l of ls) await l.successes(200);
  const frozen = await dataPlaneProcess(docker, short, DataPlaneRoles.meshDns, "0");
  process.kill(frozen.pid, "SIGSTOP");
  await new Promise((res) => setTimeout(res, 10_000));
  try {
    process.kill(frozen.pid, "SIGCONT");
  } catch {
    // killed by its sibling, as designed
  }
  for (const l of ls) await l.successes(200);
  r = sum(await Promise.all(ls.map((l) => l.stop())));
  const after = await dataPlaneProcess(docker, short, DataPlaneRoles.meshDns, "0").catch(() => null);
  console.log(`dataplane freeze failures: ${r.failed} of ${r.total} (slowest request ${r.slowest.toFixed(0)} ms; the frozen replica ${after && after.pid !== frozen.pid ? "was killed and restarted" : "was not replaced"})`);

  // dockerd restart under load, with live-restore (on when npm start installed docker.io; else turned on
  // here by a first restart, without load: it counts only when on before the engine stops).
  const dockerdFlags = daemonJsonLiveRestore() ? [] : ["--live-restore"];
  const startDockerd = () => {
    const fd = openSync(join(dataDir, "logs", "dockerd.log"), "a");
    spawn("dockerd", dockerdFlags, { detached: true, stdio: ["ignore", fd, fd] }).unref();
  };
  if (!(await liveRestore(docker))) {
    console.log("  (the engine's live-restore is off: a first restart turns it on with --live-restore)");
    await restartEngine(docker, startDockerd);
    await waitFor("every domain to serve", async () => ((await serving()) ? true : undefined), { timeoutMs: 120_000 });
  }
  ls = loads();
  for (const l of ls) await l.successes(200);
  await restartEngine(docker, startDockerd);
  for (const l of ls) await l.successes(200);
  r = sum(await Promise.all(ls.map((l) => l.stop())));
  console.log(`dockerd restart failures (live-restore): ${r.failed} of ${r.total} (slowest request ${r.slowest.toFixed(0)} ms)`);

  // A reboot: every process of the installation kill -9ed, the engine stopped and started.
  const pg = pidsOf(`-D ${join(dataDir, "pg")}`);
  panel.signalGroup("SIGKILL");
  await panel.exited();
  const engineBack = await simulateReboot(docker, short, pg, startDockerd);
  await waitFor("every domain to serve after the reboot", async () => ((await serving()) ? true : undefined), { timeoutMs: 120_000, intervalMs: 20 });
  console.log(`reboot to serving: ${(performance.now() - engineBack).toFixed(0)} ms`);

  // Warm start: npm start with everything installed, built and the data plane running.
  const t = performance.now();
  await panel.start();
  console.log(`warm start: ${(performance.now() - t).toFixed(0)} ms (launcher spawned to "Levelrail is running")`);
} finally {
  await db?.sql.end({ timeout: 5 }).catch(() => {});
  await removeInstallation(panel, { runtime, shortName: short, dataDir });
}
