// `levelrail doctor` end to end: the real command (scripts/levelrail.mjs → cli.ts) against the real
// engine, a Caddy of this test's on a free admin port (its pid in the data dir's pid file, as
// `npm start` records it), a real worker leading on a fresh database with a service deployed, and
// a real data plane on a free port; then the bad inputs: the HTTP port held by another
// program, and PostgreSQL down.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataPlane } from "@levelrail/dataplane/server";
import { type Db, type Sql, createDb } from "@levelrail/db/client";
import { dockerRuntime } from "@levelrail/docker";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getStatus } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { caddyAdminConfig, caddyAdminOrigin } from "@levelrail/spec/caddy-admin";
import { DATAPLANE_DIR, DATAPLANE_STATE_FILE } from "@levelrail/spec/dataplane";
import { Labels, instanceFilter } from "@levelrail/spec/naming";
import { freshDatabase, requireDatabaseUrl } from "@levelrail/testkit/db";
import { ensureTestImage } from "@levelrail/testkit/images";
import { freePort, freePortPair } from "@levelrail/testkit/registry";
import { seedOrg, testKit } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { runAsLeader } from "@levelrail/worker/leader";
import { startWorker } from "@levelrail/worker/wiring";
import { leaderLockName } from "./main";

const root = join(import.meta.dirname, "..", "..");
// An installation of this test's own: its own name and free ports, never the ones of the `npm test`
// run around it (whose Caddy and mesh DNS containers hold those).
const SHORT = `lrdoc${randomBytes(2).toString("hex")}`;
const ADMIN = `http://127.0.0.1:${await freePort()}`;
const HTTP_PORT = await freePort();
const HTTPS_PORT = await freePort();
const DNS_PORT = await freePortPair();
const IMAGE = { tag: "levelrail-test/doctor:v1", body: "doctor\n", healthy: true };

const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const dataDir = mkdtempSync(join(tmpdir(), `${SHORT}-doctor-`));
let database: Awaited<ReturnType<typeof freshDatabase>>;
let db: Db;
let sql: Sql;
let caddy: ChildProcess;
let dataPlane: DataPlane;
let leader: ReturnType<typeof runAsLeader> | null = null;

interface Report {
  checks: { name: string; status: string; message: string; holders?: { pid: number; name: string; ours: boolean }[] }[];
  ok: boolean;
}

/** `node scripts/levelrail.mjs doctor --json` as an operator runs it, with this test's ports. */
function doctor(env: Record<string, string> = {}): Promise<{ code: number | null; report: Report; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, [join(root, "scripts", "levelrail.mjs"), "doctor", "--json"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
      DATABASE_URL: database.url,
      LEVELRAIL_DATA_DIR: dataDir,
      LEVELRAIL_SHORT_NAME: SHORT,
      LEVELRAIL_CADDY_ADMIN: ADMIN,
      LEVELRAIL_INGRESS_HTTP_PORT: String(HTTP_PORT),
      LEVELRAIL_INGRESS_HTTPS_PORT: String(HTTPS_PORT),
      LEVELRAIL_MESH_DNS_PORT: String(DNS_PORT),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (b: Buffer) => (out += b.toString()));
  child.stderr.on("data", (b: Buffer) => (err += b.toString()));
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => {
      try {
        resolve({ code, report: JSON.parse(out) as Report, stderr: err, ms: Date.now() - started });
      } catch {
        reject(new Error(`doctor printed no JSON (exit ${code}):\n${out}\n${err}`));
      }
    }),
  );
}

const byName = (r: Report) => Object.fromEntries(r.checks.map((c) => [c.name, c]));

beforeAll(async () => {
  database = await freshDatabase(requireDatabaseUrl(), "doctor");
  ({ db, sql } = createDb(database.url));
  await ensureTestImage(runtime.docker, IMAGE);

  // Caddy as `npm start` runs it: admin API only until the worker loads the ingress config; its pid recorded.
  const caddyDir = join(dataDir, "caddy");
  mkdirSync(caddyDir, { recursive: true });
  writeFileSync(join(caddyDir, "admin.json"), JSON.stringify({ admin: caddyAdminConfig(ADMIN) }));
  caddy = spawn("caddy", ["run", "--config", join(caddyDir, "admin.json")], { stdio: "ignore", env: { ...process.env, XDG_DATA_HOME: caddyDir, XDG_CONFIG_HOME: caddyDir } });
  writeFileSync(join(caddyDir, "caddy.pid"), `${caddy.pid}\n`);
  await waitFor("Caddy's admin API", async () => ((await fetch(`${ADMIN}/config/`, { headers: { Origin: caddyAdminOrigin(ADMIN) } }).catch(() => null))?.ok ? true : undefined), { timeoutMs: 20_000 });

  dataPlane = new DataPlane({
    stateFile: join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE),
    shortName: SHORT,
    runtime,
    port: DNS_PORT,
    version: "test",
    gateways: false,
    log: () => {},
  });
  await dataPlane.start();
  await dataPlane.serveTcp();
}, 120_000);

afterAll(async () => {
  await leader?.stop();
  await dataPlane?.stop();
  if (caddy && caddy.exitCode === null) {
    caddy.kill("SIGTERM");
    await new Promise((r) => caddy.once("exit", r));
  }
  for (const c of await runtime.listContainers(instanceFilter(SHORT))) await runtime.removeContainer(c.id);
  for (const n of await runtime.listNetworks(instanceFilter(SHORT))) await runtime.removeNetwork(n.name);
  await sql?.end({ timeout: 5 });
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
}, 120_000);

describe("levelrail doctor", () => {
  it("fails naming the program that holds the HTTP port (node, with its pid), exit 1", async () => {
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(HTTP_PORT, "127.0.0.1", resolve));
    try {
      const { code, report } = await doctor();
      const port = byName(report)["port-http"]!;
      expect(port.status).toBe("fail");
      expect(port.message).toContain(`port ${HTTP_PORT} is held by node (pid ${process.pid})`);
      expect(port.message).toContain("LEVELRAIL_INGRESS_HTTP_PORT");
      expect(port.holders).toEqual([expect.objectContaining({ pid: process.pid, name: "node", ours: false })]);
      expect([code, report.ok]).toEqual([1, false]);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });

  it("takes the process of a running container labelled as this installation's ingress for our Caddy (by its State.Pid)", async () => {
    // The engine-supervised way: a container on the host network; here busybox's httpd stands in for Caddy.
    const name = `${SHORT}-doctor-ingress`;
    const c = await runtime.docker.createContainer({
      name,
      Image: IMAGE.tag,
      Cmd: ["/bin/busybox", "httpd", "-f", "-p", `127.0.0.1:${HTTP_PORT}`, "-h", "/www"],
      Labels: { [Labels.managed]: "true", [Labels.instance]: SHORT, [Labels.role]: "ingress" },
      HostConfig: { NetworkMode: "host" },
    });
    try {
      await c.start();
      const pid = (await c.inspect()).State.Pid;
      const port = await waitFor("busybox to listen", async () => {
        const p = byName((await doctor()).report)["port-http"];
        return p?.status === "warn" ? undefined : p;
      });
      expect(port.status).toBe("ok");
      expect(port.message).toBe(`held by our Caddy: busybox (pid ${pid}, container ${name})`);
    } finally {
      await c.remove({ force: true });
    }
  });

  it("with PostgreSQL down: that check fails, the others still run, nothing is started, and it does not hang", async () => {
    const { code, report, ms } = await doctor({ DATABASE_URL: "postgres://doctor:secret-pw@127.0.0.1:1/none" });
    const c = byName(report);
    expect(c.postgres?.status).toBe("fail");
    expect(c.postgres?.message).toContain("127.0.0.1:1/none");
    expect(JSON.stringify(report)).not.toContain("secret-pw");
    for (const n of ["migrations", "worker", "backups"]) expect(c[n]?.message).toContain("not checked");
    expect(c.engine?.status).toBe("ok");
    expect(c["caddy-admin"]?.status).toBe("warn"); // answers, serves nothing yet: no worker loaded it
    expect(code).toBe(1);
    expect(existsSync(join(dataDir, "pg"))).toBe(false); // no embedded database started for doctor
    console.log(`doctor with PostgreSQL down: ${ms} ms`);
  });

  it("is all ok (live-restore aside) with a worker leading, a service deployed, Caddy serving and the mesh DNS answering", async () => {
    const kit = testKit();
    const ctx = { ...(await seedOrg(db, "doctor", kit)), shortName: SHORT };
    leader = runAsLeader({
      lockClient: () => createDb(database.url, { max: 1 }).sql,
      lockName: leaderLockName(SHORT),
      log: () => {},
      async lead() {
        const w = await startWorker({
          db,
          sql,
          runtime,
          shortName: SHORT,
          keyring: kit.keyring,
          resyncMs: 2000,
          networkPool: { pool: "10.233.0.0/16", bits: 26 },
          meshDnsPort: DNS_PORT,
          dataPlaneStateFile: join(dataDir, DATAPLANE_DIR, DATAPLANE_STATE_FILE),
          drainMs: 300,
          ingress: { caddyAdmin: ADMIN, httpPort: HTTP_PORT, httpsPort: HTTPS_PORT },
          log: () => {},
        });
        return () => w.stop();
      },
    });
    await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
    await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: IMAGE.tag, port: 8080, healthPath: "/healthz", domains: ["doctor.localhost"] } });
    await deployService({ ctx, envId: ctx.envId, name: "web", input: {} });
    await waitFor("web to run", async () => ((await getStatus({ ctx, envId: ctx.envId, name: "web" })).phase === "running" ? true : undefined), { timeoutMs: 90_000 });

    let last: Report | null = null;
    const { report, ms } = await waitFor(
      "doctor to find Caddy serving and the worker's pass recorded",
      async () => {
        const r = await doctor();
        last = r.report;
        const c = byName(r.report);
        return c["port-http"]?.status === "ok" && c.worker?.status === "ok" && c["mesh-dns"]?.status === "ok" ? r : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 500, describe: async () => JSON.stringify(last, null, 1) },
    );
    const c = byName(report);
    for (const n of ["engine", "clock", "disk-data", "disk-engine", "port-http", "port-https", "caddy-admin", "mesh-dns", "postgres", "migrations", "worker", "backups"]) {
      expect(c[n]?.status, `${n}: ${c[n]?.message}`).toBe("ok");
    }
    expect(c["port-http"]?.message).toBe(`held by our Caddy: caddy (pid ${caddy.pid}, pid file ${join(dataDir, "caddy", "caddy.pid")})`);
    expect(c["mesh-dns"]?.message).toMatch(new RegExp(`^answers web\\.shop\\.${SHORT}\\.internal → 10\\.233\\.`));
    expect(c.worker?.message).toMatch(/^a worker leads \(database session \d+/);
    expect(["ok", "warn"]).toContain(c["live-restore"]?.status); // this host's engine is the host's
    expect(report.ok).toBe(true);
    console.log(`doctor, all answering: ${ms} ms\n${report.checks.map((x) => `${x.status} ${x.name}: ${x.message}`).join("\n")}`);

    // The worker gone: no session holds the lock any more, and doctor says so.
    await leader.stop();
    leader = null;
    const after = byName((await doctor()).report);
    expect(after.worker?.status).toBe("fail");
    expect(after.worker?.message).toContain("no worker leads");
  });
});
