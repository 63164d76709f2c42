/**
 * A world for the database controller's unit tests: the stateful fake engine, the container informer
 * over it, an in-memory store, a fake database engine whose servers accept connections when a test
 * says so, the real prober manager probing them, and an in-memory object store. Passes run one at
 * a time; keys the prober manager or the informer's events wake are collected, as a runner would.
 */
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { FakeEngine } from "@levelrail/docker/fake";
import type { BackupStatus, DatabasePhase, RestoreStatus } from "@levelrail/spec/database";
import { formatKey, databaseKey } from "@levelrail/spec/keys";
import { ContainerInformer } from "../../containers/informer";
import { wakeKeys } from "../../containers/wake";
import type { ReconcileResult } from "../../reconcile/controller";
import { ProberManager } from "../application/prober";
import { DB_ID, SHORT, database } from "./plan.cases";
import type { DatabaseCredentials, DatabaseEngine, HeldSnapshot, Inventory, ObjectStore, OutputStream } from "./ports";
import { type DatabaseProbeTarget, databaseProbe } from "./readiness";
import { databaseController } from "./reconcile";
import type { BackupRecord, BackupUpdate, DatabaseStore, DesiredDatabase, RestoreRecord, TargetCredentials } from "./store";

export const KEY = formatKey(databaseKey(DB_ID));

/** The store's side, in memory: one database (or none), its restores, backups and status history. */
export class MemoryDatabaseStore implements DatabaseStore {
  db: DesiredDatabase | null = database();
  teardownRow: { dropData: boolean } | null = null;
  readonly statuses: { phase: DatabasePhase; message: string; container: string | null }[] = [];
  readonly restores: (RestoreRecord & { status: RestoreStatus; message: string })[] = [];
  readonly backups = new Map<string, BackupRecord & { message: string; step: string | null }>();
  readonly removedVolumes: string[] = [];
  readonly targets = new Map<string, TargetCredentials>([["t-1", { id: "t-1", name: "s3", endpoint: "http://127.0.0.1:9", bucket: "b", region: "r", accessKey: "a", secretKey: "secret-key" }]]);
  get status() {
    return this.statuses.at(-1);
  }
  async database(id: string) {
    return this.db?.id === id ? structuredClone(this.db) : null;
  }
  async databaseIds() {
    return this.db ? [this.db.id] : [];
  }
  async teardown() {
    return this.teardownRow;
  }
  async finishTeardown() {
    this.teardownRow = null;
  }
  async setStatus(_id: string, phase: DatabasePhase, message: string, container: string | null) {
    this.statuses.push({ phase, message, container });
  }
  async pinNode(id: string, nodeId: string) {
    if (this.db?.id === id && this.db.nodeId === null) this.db.nodeId = nodeId;
  }
  async pendingRestore(databaseId: string) {
    const r = this.restores.find((x) => x.databaseId === databaseId && x.status === "running");
    return r ? { id: r.id, databaseId: r.databaseId, backupId: r.backupId, mode: r.mode, volume: r.volume, runner: r.runner } : null;
  }
  async updateRestore(id: string, p: { status?: RestoreStatus; message?: string; runner?: string | null }) {
    const r = this.restores.find((x) => x.id === id);
    if (r) Object.assign(r, { ...(p.status ? { status: p.status } : {}), ...(p.message !== undefined ? { message: p.message } : {}), ...(p.runner !== undefined ? { runner: p.runner } : {}) });
  }
  async switchVolume(_id: string, _org: string, volume: string) {
    if (this.db) this.db.volume = volume;
  }
  async volumeRemoved(name: string) {
    this.removedVolumes.push(name);
    if (this.db) this.db.volumesToRemove = this.db.volumesToRemove.filter((v) => v !== name);
  }
  async backup(id: string) {
    const b = this.backups.get(id);
    return b ? structuredClone(b) : null;
  }
  async updateBackup(id: string, patch: BackupUpdate) {
    const b = this.backups.get(id);
    if (b) Object.assign(b, patch);
  }
  async openBackups(databaseId: string) {
    return [...this.backups.values()].filter((b) => b.databaseId === databaseId && (b.status === "running" || b.verifyRequestedAt)).map((b) => b.id);
  }
  async lastScheduledFor() {
    return null;
  }
  async insertScheduled() {
    return null;
  }
  async storedBackups(databaseId: string) {
    return [...this.backups.values()]
      .filter((b): b is typeof b & { status: "verified" | "unverified" } => b.databaseId === databaseId && (b.status === "verified" || b.status === "unverified") && !b.prunedAt && b.objectKey !== null)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
  }
  async target(_org: string, id: string) {
    return this.targets.get(id) ?? null;
  }
  /** A backup row as the verbs make one. */
  addBackup(over: Partial<BackupRecord & { message: string; step: string | null }> & { id: string; status?: BackupStatus }): void {
    this.backups.set(over.id, {
      orgId: "org-1",
      databaseId: DB_ID,
      targetId: "t-1",
      status: "running",
      runner: null,
      scheduledFor: null,
      objectKey: null,
      sha256: null,
      inventory: null,
      verifyRequestedAt: null,
      prunedAt: null,
      createdAt: new Date(),
      message: "",
      step: "queued",
      ...over,
    });
  }
}

/**
 * The engine of a database, in memory: its servers accept connections once `accepting` holds their
 * id (or, with `acceptAll`, as soon as they run); each server's data is an inventory, which a dump
 * writes as JSON and a restore reads back.
 */
export class FakeDatabaseEngine implements DatabaseEngine {
  readonly engine = "postgres" as const;
  readonly port = 5432;
  readonly dataPath = "/var/lib/postgresql/data";
  readonly accepting = new Set<string>();
  acceptAll = false;
  /** container id → what its server holds. */
  readonly data = new Map<string, Inventory>();
  constructor(private readonly containers: FakeEngine) {}
  defaultImage = (v: string) => `postgres:${v}`;
  containerEnv = (c: DatabaseCredentials) => [`POSTGRES_USER=${c.user}`, `POSTGRES_PASSWORD=${c.password}`, `POSTGRES_DB=${c.database}`];
  connectionUrl = () => "postgres://";
  async ready(id: string) {
    return this.accepting.has(id) || (this.acceptAll && this.containers.get(id)?.state === "running");
  }
  private held(id: string): Inventory {
    return this.data.get(id) ?? { tables: {}, schema: [] };
  }
  async holdSnapshot(id: string): Promise<HeldSnapshot> {
    return { id: "00000003-00000003-1", inventory: this.held(id), close: async () => {} };
  }
  async dump(id: string): Promise<OutputStream> {
    return { stdout: Readable.from([Buffer.from(JSON.stringify(this.held(id)))]), done: Promise.resolve({ exitCode: 0, stderrTail: "" }) };
  }
  async restore(id: string, _c: DatabaseCredentials, input: Readable): Promise<void> {
    const text = Buffer.concat(await input.toArray()).toString();
    try {
      this.data.set(id, JSON.parse(text) as Inventory);
    } catch {
      throw new Error("pg_restore failed (exit 1): pg_restore: error: input file does not appear to be a valid archive");
    }
  }
  async inventory(id: string): Promise<Inventory> {
    return this.held(id);
  }
  async emptyDatabase(id: string): Promise<void> {
    this.data.delete(id);
  }
}

/** A backup target in memory: objects by key. */
export class MemoryObjects implements ObjectStore {
  readonly objects = new Map<string, Buffer>();
  async upload(key: string, body: Readable): Promise<{ sizeBytes: number; sha256: string }> {
    const bytes = Buffer.concat(await body.toArray());
    this.objects.set(key, bytes);
    return { sizeBytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  }
  async download(key: string): Promise<Readable> {
    const bytes = this.objects.get(key);
    if (!bytes) throw new Error(`NoSuchKey: ${key}`);
    return Readable.from([bytes]);
  }
  async remove(key: string) {
    this.objects.delete(key);
  }
  async exists(key: string) {
    return this.objects.has(key);
  }
}

export function databaseWorld() {
  const engine = new FakeEngine();
  const store = new MemoryDatabaseStore();
  const dbEngine = new FakeDatabaseEngine(engine);
  const accepting = dbEngine.accepting;
  const objects = new MemoryObjects();
  const woken = new Set<string>();
  const logs: string[] = [];
  const informer = new ContainerInformer({
    runtime: engine,
    shortName: SHORT,
    log: (l) => logs.push(l),
    onEvent: (e) => {
      for (const k of wakeKeys(e)) woken.add(formatKey(k));
    },
  });
  const readiness = new ProberManager<DatabaseProbeTarget>({
    probe: databaseProbe({ runtime: engine, engine: () => dbEngine }),
    intervalMs: 10,
    wake: (key) => woken.add(key),
  });
  const controller = databaseController({
    shortName: SHORT,
    runtime: engine,
    engine: () => dbEngine,
    containers: informer,
    readiness,
    store,
    objects: () => objects,
    runner: "worker-b",
    now: () => new Date(),
    wake: (key) => woken.add(key),
    pullTimeoutSeconds: 60,
    log: (l) => logs.push(l),
  });
  let started = false;
  const world = {
    engine,
    store,
    accepting,
    dbEngine,
    objects,
    informer,
    readiness,
    woken,
    logs,
    /** One pass of `key` (the informer started at the first, and every event before it taken in). */
    async pass(key = KEY): Promise<ReconcileResult | void> {
      if (!started) {
        started = true;
        await informer.start();
      }
      await informer.settled();
      return controller.reconcile(key);
    },
    /** Runs `key` as a runner would: again at once after a change, and whenever a prober or an event woke it; until it rests. */
    async converge(key = KEY, max = 30): Promise<ReconcileResult | void> {
      let last: ReconcileResult | void;
      for (let i = 0; i < max; i++) {
        woken.delete(key);
        last = await world.pass(key);
        await settle();
        await informer.settled();
        if (last?.requeueAfterMs === 0 || woken.has(key)) continue;
        return last;
      }
      throw new Error(`${key} did not rest within ${max} passes: ${JSON.stringify(store.statuses.slice(-3))}`);
    },
    stop() {
      readiness.stop();
      informer.stop();
    },
  };
  return world;
}

/** Lets the prober manager's probes (short timers) and the informer's inspections run. */
export const settle = () => new Promise((resolve) => setTimeout(resolve, 30));
