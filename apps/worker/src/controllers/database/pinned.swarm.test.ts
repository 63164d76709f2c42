import { randomBytes, randomUUID } from "node:crypto";
import { type Runtime, dockerRuntime } from "@levelrail/docker";
import { type SwarmPort, dockerSwarm } from "@levelrail/docker/swarm";
import { backupKey, databaseKey, formatKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels } from "@levelrail/spec/naming";
import { ensureAppOverlay } from "../../network/app-overlay";
import { databaseAttacher } from "./server";
import { POSTGRES_TEST_IMAGE, ensurePostgresImage } from "@levelrail/testkit/postgres-image";
import { type S3Server, startS3Server } from "@levelrail/testkit/s3";
import { type SwarmHarness, startSwarm } from "@levelrail/testkit/swarm";
import { waitFor } from "@levelrail/testkit/wait";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ContainerInformer } from "../../containers/informer";
import type { Controller } from "../../reconcile/controller";
import { ProberManager } from "../application/prober";
import { postgresEngine } from "./engines/postgres";
import { s3ObjectStore } from "./object-store";
import { DB_ID, database } from "./plan.cases";
import { pinnedClientName, pinnedServiceName } from "./pinned";
import { pinnedRestoreServer } from "./pinned-restore";
import { type DatabaseProbeTarget, databaseProbe } from "./readiness";
import { databaseController } from "./reconcile";
import { MemoryDatabaseStore } from "./testbed";

// A managed database pinned to a node by label (issue 26 items 2 and 4) on a real two-engine swarm:
// its server runs as a one-replica swarm service on the labelled worker node with its volume there,
// its password only in a swarm secret; the controller reaches it from a client container on the
// manager over the database's overlay, so backups work as on one engine (verified by a restore);
// and when the manager's engine restarts, the database on the surviving worker loses nothing. The
// store is the controller's narrow port in memory. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
const run = randomBytes(3).toString("hex");
const BUCKET = "pinned";
const KEY = formatKey(databaseKey(DB_ID));

let h: SwarmHarness;
let swarm: SwarmPort;
let runtime: Runtime;
let s3: S3Server;
let informer: ContainerInformer;
let readiness: ProberManager<DatabaseProbeTarget>;
let controller: Controller;
let workerNode: { id: string; hostname: string };
const store = new MemoryDatabaseStore();
/** The verified backup the restore uses. */
let backupId = "";
const logs: string[] = [];

/** Runs `key` as the runner would (again at once after a change, after a requeue's wait) until `done` holds. */
async function until<T>(what: string, key: string, done: () => T | undefined, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await informer.settled();
    let wait = 300;
    try {
      const r = await controller.reconcile(key);
      if (r?.requeueAfterMs === 0) wait = 50;
    } catch (err) {
      logs.push(`pass failed: ${err instanceof Error ? err.message : String(err)}`);
      wait = 1_000;
    }
    const got = done();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms; last status ${JSON.stringify(store.statuses.slice(-3))}; log ${logs.slice(-5).join(" | ")}`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

const running = () => (store.status?.phase === "running" ? store.status : undefined);

/** SQL through the client container on the manager (psql to the server on the worker, over the overlay; `host`: another server there). */
async function sql(text: string, host?: string): Promise<string> {
  const [client] = (await runtime.listContainers([`${Labels.database}=${DB_ID}`])).filter((c) => c.labels[Labels.role] === DatabaseRoles.client && c.state === "running");
  if (!client) throw new Error("no running client container");
  const exec = await h.manager.docker.getContainer(client.id).exec({
    Cmd: ["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-U", "app", "-d", "shopdb", "-c", text],
    Env: [`PGPASSWORD=${store.db!.credentials.password}`, ...(host ? [`PGHOST=${host}`] : [])],
    AttachStdout: true,
    AttachStderr: true,
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  h.manager.docker.modem.demuxStream(stream, { write: (b: Buffer) => out.push(b) } as never, { write: (b: Buffer) => err.push(b) } as never);
  await new Promise((resolve) => stream.on("end", resolve));
  const { ExitCode } = await exec.inspect();
  if (ExitCode !== 0) throw new Error(`psql exited ${ExitCode}: ${Buffer.concat(err).toString()}`);
  return Buffer.concat(out).toString().trim();
}

/** The node the server's running task is on. */
async function serverNode(): Promise<string | null> {
  const [service] = await swarm.listServices([`${Labels.database}=${DB_ID}`, `${Labels.role}=${DatabaseRoles.database}`]);
  if (!service) return null;
  const task = (await swarm.listTasks(service.id)).find((t) => t.desiredState === "running" && t.state === "running");
  return task?.nodeId ?? null;
}

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, heartbeatSeconds: 1 });
  swarm = dockerSwarm({ dockerHost: h.manager.dockerHost });
  runtime = dockerRuntime({ dockerHost: h.manager.dockerHost });
  const worker = (await swarm.listNodes()).find((n) => n.role === "worker")!;
  workerNode = { id: worker.id, hostname: worker.hostname };
  await swarm.updateNode(worker.id, { labels: { ...worker.labels, disk: `ssd-${run}` } });
  // The PostgreSQL test image, in the swarm's registry so the worker node pulls it.
  await ensurePostgresImage(h.manager.docker);
  const image = `${h.registry}/${short}/postgres:15`;
  await h.manager.docker.getImage(POSTGRES_TEST_IMAGE).tag({ repo: `${h.registry}/${short}/postgres`, tag: "15" });
  const push = await h.manager.docker.getImage(image).push({ authconfig: h.registryAuth ?? { serveraddress: h.registry } });
  await new Promise<void>((resolve, reject) => h.manager.docker.modem.followProgress(push, (err: Error | null, out: { error?: string }[]) => (err || out.find((o) => o.error) ? reject(err ?? new Error(out.find((o) => o.error)!.error)) : resolve())));
  // The manager's engine keeps only the build's own name: the worker pulls the image for the database's client itself.
  await h.manager.docker.getImage(image).remove();

  s3 = await startS3Server({ buckets: [BUCKET] });
  store.targets.set("t-1", { id: "t-1", name: "s3", endpoint: s3.endpoint, bucket: BUCKET, region: s3.region, accessKey: s3.accessKey, secretKey: s3.secretKey });
  store.db = database({ image, volume: `${short}-db-${DB_ID}`, credentials: { user: "app", password: `pw-${randomBytes(12).toString("hex")}`, database: "shopdb" }, placement: { disk: `ssd-${run}` } });

  const pg = postgresEngine(runtime);
  informer = new ContainerInformer({ runtime, shortName: short, log: (l) => logs.push(l), onEvent: () => {} });
  await informer.start();
  readiness = new ProberManager<DatabaseProbeTarget>({ probe: databaseProbe({ runtime, engine: () => pg }), intervalMs: 250, probeTimeoutMs: 5_000, wake: () => {} });
  controller = databaseController({
    shortName: short,
    runtime,
    engine: () => pg,
    containers: informer,
    readiness,
    store,
    objects: (t) => s3ObjectStore(t, { policy: { allowPrivate: true } }),
    runner: "worker-a",
    now: () => new Date(),
    wake: () => {},
    pullTimeoutSeconds: 120,
    log: (l) => logs.push(l),
    pinned: { swarm },
  });
}, 300_000);

afterAll(async () => {
  readiness?.stop();
  informer?.stop();
  await s3?.stop();
  await h?.stop();
}, 120_000);

describe("a database pinned to a node on a swarm", () => {
  it("runs as a swarm service on the labelled worker with its volume there, its password in a swarm secret only", async () => {
    const status = await until("the pinned database to run", KEY, running);
    expect(status.message).toContain(`on node ${workerNode.hostname}`);
    expect(status.container).toBe(pinnedServiceName(short, store.db!));
    expect(await serverNode()).toBe(workerNode.id);
    // Chosen once among the nodes its labels select, and kept: the service is constrained to that node.
    expect(store.db!.nodeId).toBe(workerNode.id);
    const [pinned] = await swarm.listServices([`${Labels.database}=${DB_ID}`]);
    expect(pinned!.constraints).toEqual([`node.id==${workerNode.id}`]);
    // The volume was made by the worker's engine; the manager has none of that name.
    const workerEngine = h.nodes.find((n) => n !== h.manager)!.docker;
    const onWorker = (await workerEngine.listVolumes()).Volumes.map((v) => v.Name);
    const onManager = ((await h.manager.docker.listVolumes()).Volumes ?? []).map((v) => v.Name);
    expect(onWorker).toContain(store.db!.volume);
    expect(onManager).not.toContain(store.db!.volume);
    // `docker service inspect` shows no password.
    const [service] = await swarm.listServices([`${Labels.database}=${DB_ID}`]);
    const inspected = JSON.stringify(await h.manager.docker.getService(service!.id).inspect());
    expect(inspected).not.toContain(store.db!.credentials.password);
    expect(inspected).toContain("POSTGRES_PASSWORD_FILE");
    // The client is on the manager, named for the image.
    const clients = (await runtime.listContainers([`${Labels.database}=${DB_ID}`])).filter((c) => c.labels[Labels.role] === DatabaseRoles.client);
    expect(clients.map((c) => c.name)).toEqual([pinnedClientName(short, store.db!)]);
  }, 240_000);

  it("takes a backup through the client on the manager, verified by a restore", async () => {
    await sql("CREATE TABLE orders (id int PRIMARY KEY, note text); INSERT INTO orders SELECT g, 'order ' || g FROM generate_series(1, 1500) g;");
    const id = randomUUID();
    backupId = id;
    store.addBackup({ id, databaseId: DB_ID, targetId: "t-1" });
    const done = await until("the backup to finish", formatKey(backupKey(id)), () => {
      const b = store.backups.get(id);
      return b && b.status !== "running" ? b : undefined;
    });
    expect({ status: done.status, message: done.message }).toMatchObject({ status: "verified" });
    expect(done.inventory?.tables["public.orders"]).toBe(1500);
    expect(JSON.stringify([...store.backups.values()])).not.toContain(store.db!.credentials.password);
  }, 240_000);

  it("restores a backup in place on its node: a restore server fills a fresh volume there, then the server switches to it", async () => {
    await sql("DELETE FROM orders WHERE id > 1000;");
    expect(await sql("SELECT count(*) FROM orders")).toBe("1000");
    const id = randomUUID();
    const previous = store.db!.volume;
    const volume = `${previous}-${id.slice(0, 8)}`;
    store.restores.push({ id, databaseId: DB_ID, backupId, mode: "replace", volume, runner: null, status: "running", message: "" });
    const done = await until("the restore to end", KEY, () => {
      const r = store.restores.find((x) => x.id === id);
      return r && r.status !== "running" ? r : undefined;
    });
    expect({ status: done.status, message: done.message }).toMatchObject({ status: "succeeded", message: expect.stringContaining(`the previous data is kept on volume ${previous}`) });
    expect(store.db!.volume).toBe(volume);
    await until("the server to run on the restored volume", KEY, () => (running() ? true : undefined));
    // Its rows are the backup's again (the switch restarts the server: asked until it answers).
    const rows = await waitFor("the restored rows", async () => ((await sql("SELECT count(*) FROM orders").catch(() => "")) === "1500" ? "1500" : undefined), { timeoutMs: 60_000 });
    expect(rows).toBe("1500");
    // Both volumes are on the worker, none on the manager; the restore server is gone.
    const workerEngine = h.nodes.find((n) => n !== h.manager)!.docker;
    const onWorker = (await workerEngine.listVolumes()).Volumes.map((v) => v.Name);
    expect(onWorker).toEqual(expect.arrayContaining([previous, volume]));
    expect(((await h.manager.docker.listVolumes()).Volumes ?? []).map((v) => v.Name)).not.toContain(volume);
    expect((await swarm.listServices([`${Labels.database}=${DB_ID}`])).map((x) => x.labels[Labels.role])).toEqual([DatabaseRoles.database]);
  }, 300_000);

  it("retries a restore cut short by a worker's death on the volume it half filled, and fills it whole", async () => {
    const id = randomUUID();
    const previous = store.db!.volume;
    const volume = `${previous}-${id.slice(0, 8)}`;
    const record = { id, databaseId: DB_ID, backupId, mode: "replace" as const, volume, runner: "a-worker-that-died" };
    // The attempt that died: its restore server on the worker, a fresh volume there half filled.
    const [client] = (await runtime.listContainers([`${Labels.database}=${DB_ID}`])).filter((c) => c.labels[Labels.role] === DatabaseRoles.client);
    const [secret] = await swarm.listSecrets([`${Labels.database}=${DB_ID}`]);
    const deps = { shortName: short, runtime, engine: () => postgresEngine(runtime), swarm, now: () => new Date(), log: (l: string) => logs.push(l) };
    const died = pinnedRestoreServer(deps as never, store.db!, record, client!.id, secret!.id);
    const { host } = await died.start();
    await sql("CREATE TABLE orders (id int PRIMARY KEY, note text); INSERT INTO orders SELECT g, 'half ' || g FROM generate_series(1, 200) g;", host);
    // A new worker finds the restore still running under the dead one's name and runs it again.
    store.restores.push({ ...record, status: "running", message: "restoring into a fresh volume" });
    const done = await until("the retried restore to end", KEY, () => {
      const r = store.restores.find((x) => x.id === id);
      return r && r.status !== "running" ? r : undefined;
    });
    expect({ status: done.status, message: done.message }).toMatchObject({ status: "succeeded" });
    expect(store.db!.volume).toBe(volume);
    await until("the server to run on the restored volume", KEY, () => (running() ? true : undefined));
    const rows = await waitFor("the backup's rows", async () => ((await sql("SELECT count(*) FROM orders WHERE note LIKE 'order %'").catch(() => "")) === "1500" ? "1500" : undefined), { timeoutMs: 60_000 });
    expect(rows).toBe("1500");
    expect(await sql("SELECT count(*) FROM orders WHERE note LIKE 'half %'")).toBe("0");
    expect((await swarm.listServices([`${Labels.database}=${DB_ID}`])).map((x) => x.labels[Labels.role])).toEqual([DatabaseRoles.database]);
  }, 300_000);

  it("joins an app's overlay when a service attaches it: the deploy waits until it has, then the name answers there", async () => {
    const appId = `a${run}`;
    const net = await ensureAppOverlay(runtime, swarm, short, appId, { pool: "10.235.0.0/16", bits: 26 });
    const attacher = databaseAttacher({ shortName: short, runtime, containers: informer, pinned: { swarm, wake: () => {} } }, async () => ({ appId, databases: [store.db!] }));
    // Not joined yet: the deploy is told to wait, and why.
    await expect(attacher.attach("svc-1")).rejects.toThrow(/joining the app's network on its node/);
    store.db = { ...store.db!, attachedApps: [appId] };
    await until("the database to run on the app's network too", KEY, () => (running() && store.status?.message.includes("1 app") ? true : undefined));
    await waitFor("the attacher to let the deploy go on", async () => ((await attacher.attach("svc-1").then(() => true, () => false)) ? true : undefined), { timeoutMs: 60_000 });
    // A container on the app's overlay, on the manager, reaches the server on the worker by its name.
    const probe = await h.manager.docker.createContainer({ Image: store.db!.image, Entrypoint: ["pg_isready"], Cmd: ["-h", "shopdb", "-p", "5432", "-t", "20"], HostConfig: { NetworkMode: net.name } });
    try {
      await probe.start();
      const { StatusCode } = (await probe.wait()) as { StatusCode: number };
      expect(StatusCode).toBe(0);
    } finally {
      await probe.remove({ force: true });
    }
  }, 240_000);

  it("loses nothing on the surviving worker when the manager's engine restarts", async () => {
    const before = await serverNode();
    const away = await h.restartEngine(h.manager.index);
    logs.push(`manager engine away ${away} ms`);
    // The server never left the worker: its rows are all there, read through the client again.
    const status = await until("the pinned database to run again", KEY, running, 240_000);
    expect(status.message).toContain(`on node ${workerNode.hostname}`);
    expect(await serverNode()).toBe(before);
    const rows = await waitFor("the rows to read back", async () => (await sql("SELECT count(*) FROM orders").catch(() => undefined)) ?? undefined, { timeoutMs: 60_000 });
    expect(rows).toBe("1500");
  }, 300_000);

  it("stops while its node is drained, says so and what brings it back, and runs on its data again once the node is active", async () => {
    await swarm.updateNode(workerNode.id, { availability: "drain" });
    try {
      const stopped = await until("the status to say its node is drained", KEY, () => (store.status?.phase === "stopped" ? store.status : undefined), 120_000);
      // The node's name as the statuses give it (its hostname, with its address where hostnames repeat).
      expect(stopped.message).toMatch(new RegExp(`^stopped: its node ${workerNode.hostname}.* is drained and its data volume ${store.db!.volume} is there; activate ${workerNode.hostname}.* on the Nodes page to start it again$`));
      // Never moved to the manager, where its volume is not.
      expect(await serverNode()).toBeNull();
    } finally {
      await swarm.updateNode(workerNode.id, { availability: "active" });
    }
    const status = await until("the pinned database to run again on its node", KEY, running, 180_000);
    expect(status.message).toContain(`on node ${workerNode.hostname}`);
    const rows = await waitFor("the rows to read back", async () => (await sql("SELECT count(*) FROM orders").catch(() => undefined)) ?? undefined, { timeoutMs: 60_000 });
    expect(rows).toBe("1500");
  }, 300_000);

  it("tears down its service, secret and overlay when deleted, and says its volume stays on the worker", async () => {
    store.db = null;
    store.teardownRow = { dropData: false };
    await until("the teardown", KEY, () => (store.teardownRow === null ? true : undefined), 120_000);
    expect(await swarm.listServices([`${Labels.database}=${DB_ID}`])).toEqual([]);
    expect(await swarm.listSecrets([`${Labels.database}=${DB_ID}`])).toEqual([]);
    // The swarm removed the overlay; the manager's own view of it goes a moment later.
    await waitFor("the overlay to go from the manager's view", async () => ((await runtime.inspectNetwork(`${short}-db-${DB_ID}`)) === null ? true : undefined), { timeoutMs: 30_000 });
    expect(logs.some((l) => l.includes(`stays on ${workerNode.hostname}`))).toBe(true);
  }, 180_000);
});
