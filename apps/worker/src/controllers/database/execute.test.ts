import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { formatKey, backupKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels, databaseHelperName, databaseLabels, databaseVolumeName, networkLabels, networkName } from "@levelrail/spec/naming";
import { INTERRUPTED } from "./backup-plan";
import { DB_ID, SERVER, SHORT, VOLUME, nameOf } from "./plan.cases";
import { KEY, databaseWorld, settle } from "./testbed";

const IMAGE = "postgres:17";
const LABELS = databaseLabels(SHORT, { databaseId: DB_ID, environmentId: "env-1" });
let w: ReturnType<typeof databaseWorld>;

beforeEach(() => {
  w = databaseWorld();
  w.engine.registry.set(IMAGE, "sha256:pg17");
});
afterEach(() => w.stop());

/** The database's containers on the engine now, by role. */
const servers = () => [...w.engine.containers.values()].filter((c) => c.labels[Labels.database] === DB_ID && c.labels[Labels.role] === DatabaseRoles.database);

/** A fresh database brought to running: the server accepts connections as soon as it starts. */
async function running() {
  w.engine.script = () => ({ chunks: [], exit: "runs" });
  const accept = () => {
    for (const c of servers()) if (c.state === "running") w.accepting.add(c.id);
  };
  for (let i = 0; i < 10; i++) {
    await w.converge();
    if (w.store.status?.phase === "running") break;
    accept();
    w.woken.add(KEY);
  }
  expect(w.store.status?.phase).toBe("running");
}

describe("the database controller on the fake engine", () => {
  it("a new database: image pulled, volume made with its labels, one server on `none` under unless-stopped, running once it accepts connections", async () => {
    await running();
    const [server, ...others] = servers();
    expect(others).toEqual([]);
    expect(server).toMatchObject({ name: SERVER, state: "running", restartPolicy: "unless-stopped" });
    expect(server!.options.HostConfig).toMatchObject({ NetworkMode: "none", Mounts: [{ Type: "volume", Source: VOLUME, Target: "/var/lib/postgresql/data" }] });
    expect(await w.engine.inspectVolume(VOLUME)).toEqual({ name: VOLUME, labels: LABELS });
    expect(w.engine.pulls.map((p) => p.ref)).toEqual([IMAGE]);
    expect(w.store.status).toEqual({ phase: "running", message: "accepting connections as shopdb:5432; no service attaches it yet", container: SERVER });
    // Statuses on the way: pulling, starting, waiting for connections.
    expect(w.store.statuses.map((s) => s.phase)).toEqual(expect.arrayContaining(["pending", "starting", "running"]));
  });

  it("a server killed and restarted by the engine: its event wakes the key, the status says so, then running again once it answers", async () => {
    await running();
    await settle();
    const [server] = servers();
    w.woken.clear();
    w.accepting.delete(server!.id);
    w.engine.restart(server!.id, 137); // kill -9: the engine restarts it under unless-stopped
    await w.informer.settled();
    expect([...w.woken]).toEqual([KEY]);
    await w.pass();
    expect(w.store.status).toEqual({ phase: "starting", message: "the server restarted after it exited with code 137 (1 restart); waiting for the server to accept connections", container: SERVER });
    w.accepting.add(server!.id);
    await w.converge();
    expect(w.store.status?.phase).toBe("running");
    expect(servers().map((c) => c.id)).toEqual([server!.id]); // the engine's to restart: never replaced
  });

  it("its image changed: the old server stops (cleanly) before the new one is made", async () => {
    await running();
    const old = servers()[0]!;
    w.store.db = { ...w.store.db!, image: "postgres:18" };
    w.engine.registry.set("postgres:18", "sha256:pg18");
    w.engine.calls.length = 0;
    await w.converge();
    const made = nameOf({ image: "postgres:18", volume: VOLUME });
    expect(w.engine.calls.filter((c) => !c.startsWith("exec") && !c.startsWith("pull"))).toEqual([`stop ${old.name}`, `remove ${old.name}`, `create ${made}`, `start ${made}`]);
  });

  it("joins the network of an app that attaches it, under its name, once that network exists", async () => {
    await running();
    const net = networkName(SHORT, "app-a");
    w.engine.addNetwork({ name: net, labels: networkLabels(SHORT, "app-a"), subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
    w.store.db = { ...w.store.db!, attachedApps: ["app-a"] };
    await w.converge();
    const server = servers()[0]!;
    expect(Object.keys(server.addresses)).toEqual([net]);
    expect(w.engine.networks.get(net)!.aliases[server.id]).toEqual(["shopdb"]);
    expect(w.store.status?.message).toBe("accepting connections as shopdb:5432; reachable by the services of 1 app");
    w.store.db = { ...w.store.db!, attachedApps: [] };
    await w.converge();
    expect(servers()[0]!.addresses).toEqual({});
  });

  it("a pull that fails: the status says why and the pass throws, for the runner's backoff (no delay of its own)", async () => {
    w.engine.failNextPull("registry unreachable");
    await expect(w.pass()).rejects.toThrow(`image ${IMAGE} could not be pulled: registry unreachable`);
    expect(w.store.status).toEqual({ phase: "failed", message: `image ${IMAGE} could not be pulled: registry unreachable`, container: null });
  });

  it("another organization's private image in the engine's cache (pulled with its login): refused, nothing made, however the reference is spelled", async () => {
    // Organization A pulled acme/private:1 from Docker Hub with its own login.
    const ref = "acme/private:1";
    for (const r of [ref, "index.docker.io/acme/private:1"]) {
      w.engine.registry.set(r, "sha256:a1");
      w.engine.logins.set(r, "org-a-password");
    }
    await w.engine.pullImage(ref, { username: "a", password: "org-a-password", serveraddress: "docker.io" }, () => {});
    // The engine resolves Docker Hub's legacy name to the same image (the fake looks names up as written).
    w.engine.images.set("index.docker.io/acme/private:1", "sha256:a1");
    for (const image of [ref, "index.docker.io/acme/private:1"]) {
      w.store.db = { ...w.store.db!, image };
      await w.converge();
      expect(w.store.status).toMatchObject({ phase: "failed", container: null });
      expect(w.store.status?.message).toContain(`image ${image} is on this host, but its registry did not confirm this database may pull it without a registry credential`);
      expect(servers()).toEqual([]);
      expect(await w.engine.inspectVolume(VOLUME)).toBeNull();
    }
    expect(w.engine.pulls.map((p) => p.auth)).toEqual([expect.objectContaining({ username: "a" })]); // it never pulled it itself either
  });

  it("its container name taken by a container that is not its own: said, never touched", async () => {
    w.engine.images.set(IMAGE, "sha256:pg17");
    await w.engine.createVolume(VOLUME, LABELS);
    w.engine.add({ name: SERVER, labels: { other: "yes" } });
    await w.converge();
    expect(w.store.status).toEqual({ phase: "failed", message: `container name ${SERVER} is taken by a container that is not this database's; remove it`, container: null });
    expect(w.engine.get(SERVER)?.labels).toEqual({ other: "yes" });
  });

  it("deleted with its data: its server and volume go, then the teardown row", async () => {
    await running();
    w.store.db = null;
    w.store.teardownRow = { dropData: true };
    await w.converge();
    expect(servers()).toEqual([]);
    expect(w.engine.volumes.has(VOLUME)).toBe(false);
    expect(w.store.teardownRow).toBeNull();
  });

  it("a replacing restore switched before a crash: recorded as done, the restored volume kept and served", async () => {
    await running();
    const restored = databaseVolumeName(SHORT, DB_ID, "5f1e2d3c-0000-4000-8000-000000000000");
    await w.engine.createVolume(restored, LABELS);
    w.store.restores.push({ id: "5f1e2d3c-0000-4000-8000-000000000000", databaseId: DB_ID, backupId: "b-1", mode: "replace", volume: restored, runner: "worker-a", status: "running", message: "" });
    w.store.db = { ...w.store.db!, volume: restored };
    await running();
    expect(w.store.restores[0]).toMatchObject({ status: "succeeded", message: "restored the backup; the previous data is kept" });
    expect(w.engine.volumes.has(restored)).toBe(true);
    expect(servers().map((c) => c.name)).toEqual([nameOf({ image: IMAGE, volume: restored })]);
  });

  it("a backup waits for its database without polling: the deadline is its requeue, and the database's pass wakes it", async () => {
    w.store.addBackup({ id: "b-1" });
    const r = await w.pass(formatKey(backupKey("b-1")));
    expect(r?.requeueAfterMs).toBeGreaterThan(590_000);
    expect(w.store.backups.get("b-1")?.message).toBe("waiting for the database to accept connections");
    await running();
    expect(w.woken.has(formatKey(backupKey("b-1")))).toBe(true);
  });

  it("a backup cut short by a worker that stopped: interrupted, its throwaway and its object gone", async () => {
    await running();
    const key = `${SHORT}/${DB_ID}/2026-03-01T12:00:00.000Z.dump`;
    w.objects.objects.set(key, Buffer.from("dump"));
    const helper = databaseHelperName(SHORT, "shopdb", "verify", "b-1");
    await w.engine.createVolume(helper, LABELS);
    w.engine.add({ name: helper, state: "running", labels: databaseLabels(SHORT, { databaseId: DB_ID, environmentId: "env-1" }, DatabaseRoles.verify) });
    w.store.addBackup({ id: "b-1", runner: "worker-a", objectKey: key, step: "verifying" });
    await w.pass(formatKey(backupKey("b-1")));
    expect(w.store.backups.get("b-1")).toMatchObject({ status: "interrupted", message: INTERRUPTED, runner: null });
    expect(w.objects.objects.has(key)).toBe(false);
    expect(w.engine.get(helper)).toBeUndefined();
    expect(w.engine.volumes.has(helper)).toBe(false);
  });
});

describe("backups and restores, whole, on the fake engine", () => {
  const HELD = { tables: { "public.notes": 3 }, schema: ["column public.notes id integer not null"] };
  const KEY_ = `${SHORT}/${DB_ID}/2026-03-01T11:00:00.000Z.dump`;
  const RESTORED = databaseVolumeName(SHORT, DB_ID, "5f1e2d3c-0000-4000-8000-000000000000");
  const ofRole = (role: string) => [...w.engine.containers.values()].filter((c) => c.labels[Labels.role] === role);

  /** A verified backup whose object holds `body` (its sha256 recorded as `sha256`, default the body's). */
  function storedBackup(body = JSON.stringify(HELD), sha256?: string) {
    const bytes = Buffer.from(body);
    w.objects.objects.set(KEY_, bytes);
    const digest = sha256 ?? createHash("sha256").update(bytes).digest("hex");
    w.store.addBackup({ id: "b-0", status: "verified", step: null, objectKey: KEY_, sha256: digest, inventory: HELD, createdAt: new Date("2026-03-01T11:00:00Z") });
  }
  const replaceRestore = (mode: "replace" | "into" = "replace", volume = RESTORED) =>
    w.store.restores.push({ id: "5f1e2d3c-0000-4000-8000-000000000000", databaseId: DB_ID, backupId: "b-0", mode, volume, runner: null, status: "running", message: "" });

  beforeEach(() => {
    w.dbEngine.acceptAll = true;
  });

  it("a backup: dumped from a held snapshot, stored with its sha256, verified by a restore into a throwaway that is gone after", async () => {
    await running();
    w.dbEngine.data.set(servers()[0]!.id, HELD);
    w.store.addBackup({ id: "b-1" });
    await w.pass(formatKey(backupKey("b-1")));
    const b = w.store.backups.get("b-1")!;
    expect(b).toMatchObject({ status: "verified", step: null, runner: "worker-b", message: "verified: restored and compared", inventory: HELD });
    const bytes = w.objects.objects.get(b.objectKey!)!;
    expect(b.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    expect(ofRole(DatabaseRoles.verify)).toEqual([]);
    expect(w.engine.volumes.has(databaseHelperName(SHORT, "shopdb", "verify", "b-1"))).toBe(false);
    expect(w.readiness.size).toBe(1); // the throwaway's probe is forgotten; the server's stays
  });

  it("a replacing restore: a one-off fills a fresh volume, the database switches to it and its server is made again there; the old volume is kept", async () => {
    await running();
    storedBackup();
    replaceRestore();
    await w.converge();
    await running();
    expect(w.store.restores[0]).toMatchObject({ status: "succeeded", message: `restored the backup of 2026-03-01T11:00:00.000Z; the previous data is kept on volume ${VOLUME}` });
    expect(w.store.db!.volume).toBe(RESTORED);
    expect(servers().map((c) => c.name)).toEqual([nameOf({ image: IMAGE, volume: RESTORED })]);
    expect(w.engine.volumes.has(VOLUME)).toBe(true);
    expect(ofRole(DatabaseRoles.restore)).toEqual([]);
  });

  it("a replacing restore whose object changed since it was written: failed, the fresh volume gone, the database serving its old data", async () => {
    await running();
    const before = servers()[0]!;
    storedBackup(JSON.stringify(HELD), "0".repeat(64));
    replaceRestore();
    await w.converge();
    expect(w.store.restores[0]).toMatchObject({ status: "failed", message: expect.stringMatching(/^restore failed: the stored object changed since it was written/) });
    expect(w.engine.volumes.has(RESTORED)).toBe(false);
    expect(w.store.db!.volume).toBe(VOLUME);
    expect(servers().map((c) => c.id)).toEqual([before.id]);
    expect(w.store.status?.phase).toBe("running");
  });

  it("a restore into a new database: said first, filled before its server ever starts, then running", async () => {
    storedBackup();
    w.engine.images.set(IMAGE, "sha256:pg17");
    replaceRestore("into", VOLUME);
    await w.converge();
    expect(w.store.statuses[0]).toEqual({ phase: "starting", message: "restoring the backup into the new database", container: null });
    expect(w.store.restores[0]).toMatchObject({ status: "succeeded", message: "restored the backup of 2026-03-01T11:00:00.000Z" });
    await running();
    expect(servers().map((c) => c.name)).toEqual([SERVER]);
    expect(w.engine.calls.findIndex((c) => c.startsWith("create") && c.includes("-restore-"))).toBeLessThan(w.engine.calls.indexOf(`create ${SERVER}`));
  });
});
