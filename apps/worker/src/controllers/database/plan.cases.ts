/**
 * The database controller's plan as tables of plain data, one row per situation, every crash point of
 * a backup, of a restore into a new database and of a replacing restore included. `plan.test.ts`
 * runs them; `bench/database.ts` counts them (`database plan cases`).
 */
import type { ManagedContainer } from "@levelrail/docker";
import { DatabaseRoles, type DatabaseRole, databaseContainerName, databaseLabels, databaseVolumeName, networkName } from "@levelrail/spec/naming";
import type { ProbeObservation } from "../application/prober";
import { type BackupDesired, type BackupObserved, INTERRUPTED } from "./backup-plan";
import { postgresEngine } from "./engines/postgres";
import type { Desired, Observed } from "./plan";
import { databaseContainerOptions } from "./server";
import type { BackupRecord, DesiredDatabase, RestoreRecord } from "./store";

export const NOW = new Date("2026-03-01T12:00:30Z").getTime();
export const SHORT = "lrt";
export const DB_ID = "8d2f0e4a-2b7c-4f19-a0c6-5e3d1b9f7a22";
const ENV_ID = "env-1";
export const VOLUME = databaseVolumeName(SHORT, DB_ID);
const RESTORED = databaseVolumeName(SHORT, DB_ID, "5f1e2d3c-0000-4000-8000-000000000000");
const IMAGE = "postgres:17";
export const ME = "worker-b";
const OTHER = "worker-a";
const NET_A = networkName(SHORT, "app-a");
const NET_B = networkName(SHORT, "app-b");
const engine = postgresEngine({
  exec: () => Promise.reject(new Error("no engine in a plan")),
  execStream: () => Promise.reject(new Error("no engine in a plan")),
});

export function database(over: Partial<DesiredDatabase> = {}): DesiredDatabase {
  return {
    id: DB_ID,
    orgId: "org-1",
    environmentId: ENV_ID,
    name: "shopdb",
    engine: "postgres",
    version: "17",
    image: IMAGE,
    credentials: { user: "postgres", password: "s3cret-pw", database: "shopdb" },
    volume: VOLUME,
    backupSchedule: null,
    scheduleSince: null,
    attachedApps: [],
    volumesToRemove: [],
    failedInto: null,
    placement: {},
    nodeId: null,
    ...over,
  };
}

export const nameOf = (d: Pick<DesiredDatabase, "image" | "volume">) => databaseContainerName(SHORT, "shopdb", { databaseId: DB_ID, image: d.image, volume: d.volume });
export const SERVER = nameOf({ image: IMAGE, volume: VOLUME });

export function desired(over: Partial<DesiredDatabase> | null = {}, teardown: { dropData: boolean } | null = null): Desired {
  if (over === null) return { databaseId: DB_ID, database: null, teardown, shortName: SHORT, serverName: "", serverOptions: null, port: 0 };
  const d = database(over);
  const name = nameOf(d);
  const options = databaseContainerOptions({ shortName: SHORT, engine: () => engine }, d, { name, role: DatabaseRoles.database, volume: d.volume, credentials: d.credentials });
  return { databaseId: DB_ID, database: d, teardown: null, shortName: SHORT, serverName: name, serverOptions: options, port: 5432 };
}

export function container(over: Partial<ManagedContainer> & { role?: DatabaseRole } = {}): ManagedContainer {
  const { role = DatabaseRoles.database, ...rest } = over;
  const name = rest.name ?? SERVER;
  return {
    id: `id-${name}`,
    name,
    state: "running",
    labels: databaseLabels(SHORT, { databaseId: DB_ID, environmentId: ENV_ID }, role),
    startedAt: NOW - 60_000,
    finishedAt: 0,
    exitCode: null,
    createdAt: NOW - 120_000,
    restartCount: 0,
    restartPolicy: role === DatabaseRoles.database ? "unless-stopped" : "no",
    addresses: {},
    ...rest,
  };
}
const server = container;
const oneOff = (purpose: "restore" | "verify", id: string) => container({ name: `${SHORT}-db-shopdb-${purpose}-${id.slice(0, 8)}`, role: purpose === "restore" ? DatabaseRoles.restore : DatabaseRoles.verify });

const ready = (at = NOW - 1_000): ProbeObservation => ({ ready: true, detail: "accepting connections", at, done: true });

export function observed(over: Partial<Observed> = {}): Observed {
  return {
    now: NOW,
    servers: [],
    oneOffs: [],
    restore: null,
    imagePresent: true,
    imageRefused: null,
    volume: "ours",
    appNetworks: [],
    probe: null,
    logTail: "",
    lastScheduledFor: null,
    openBackups: [],
    volumes: [],
    ...over,
  };
}
/** A server that runs and answers: what a converged database looks like. */
const live = (over: Partial<Observed> = {}) => observed({ servers: [server()], probe: ready(), imagePresent: null, volume: null, ...over });

const restore = (over: Partial<RestoreRecord> = {}): RestoreRecord => ({ id: "5f1e2d3c-0000-4000-8000-000000000000", databaseId: DB_ID, backupId: "b-1", mode: "replace", volume: RESTORED, runner: null, ...over });
const INTO = { mode: "into" as const, volume: VOLUME };
const REFUSED = "image registry.a.com/acme/api:1 is on this host, but its registry did not confirm this database may pull it without a registry credential (unauthorized)";

/** [situation, desired, observed, what the step must be (a subset: `toMatchObject`)]. */
export type Row = [string, Desired, Observed, Record<string, unknown>];

const status = (phase: string, message: string, container: string | null = SERVER) => ({ phase, message, container });

const deleted: Row[] = [
  ["deleted, nothing of it left", desired(null), observed(), { kind: "gone" }],
  ["deleted: its server (stopped cleanly) and a one-off go, its data stays", desired(null, { dropData: false }), observed({ servers: [server()], oneOffs: [oneOff("verify", "b-1")] }), { kind: "teardown", remove: [server(), oneOff("verify", "b-1")], volumes: [], finish: true }],
  ["deleted with its data: the volumes go too", desired(null, { dropData: true }), observed({ volumes: [VOLUME, RESTORED] }), { kind: "teardown", remove: [], volumes: [VOLUME, RESTORED], finish: true }],
  ["crash after the containers went, before the teardown row did: finished", desired(null, { dropData: false }), observed(), { kind: "teardown", remove: [], finish: true }],
  ["a container of it left after the teardown finished: removed", desired(null), observed({ servers: [server()] }), { kind: "teardown", remove: [server()], finish: false }],
];

const volumes: Row[] = [
  ["a kept volume the operator asked to remove goes", desired({ volumesToRemove: [RESTORED] }), live(), { kind: "remove-volumes", volumes: [RESTORED] }],
  ["the live volume is never removed, whatever is asked", desired({ volumesToRemove: [VOLUME] }), live(), { kind: "running" }],
];

const server_: Row[] = [
  ["its image is not on the engine: pull", desired(), observed({ imagePresent: false }), { kind: "pull", image: IMAGE, status: status("pending", `pulling ${IMAGE}`, null) }],
  ["an image on the engine its registry does not let it pull (another organization's private image): held, failed, nothing made", desired(), observed({ imageRefused: REFUSED, volume: "missing" }), { kind: "hold", status: status("failed", REFUSED, null) }],
  ["no volume yet: made with its labels", desired(), observed({ volume: "missing" }), { kind: "create-volume", volume: VOLUME }],
  ["a volume of its name that is someone else's: never used", desired(), observed({ volume: "foreign" }), { kind: "hold", status: status("failed", `volume ${VOLUME} exists but is not this database's; remove or rename it`, null) }],
  ["no server: create it on the volume, on no network", desired(), observed(), {
    kind: "create",
    options: { name: SERVER, Image: IMAGE, HostConfig: { NetworkMode: "none", RestartPolicy: { Name: "unless-stopped" }, Mounts: [{ Type: "volume", Source: VOLUME, Target: "/var/lib/postgresql/data" }] } },
    status: status("starting", `starting ${SERVER}`),
  }],
  ["its image changed: the old server stops first", desired({ image: "postgres:18" }), observed({ servers: [server()] }), { kind: "retire", container: server(), status: status("starting", `stopping ${SERVER}: its image or data volume changed`) }],
  ["crash after create, before start: start it", desired(), observed({ servers: [server({ state: "created" })] }), { kind: "start", status: status("starting", `starting ${SERVER}`) }],
  ["stopped by hand: started again, saying how it ended", desired(), observed({ servers: [server({ state: "exited", exitCode: 0 })], logTail: "LOG: database system is shut down" }), {
    kind: "start",
    status: status("starting", `starting ${SERVER} (the server is exited: LOG: database system is shut down)`),
  }],
  ["crashed, the engine restarting it: said (without its next run's lines), nothing done", desired(), observed({ servers: [server({ state: "restarting", exitCode: 137, restartCount: 1 })], logTail: "LOG: database system is ready" }), {
    kind: "hold",
    status: status("starting", "the server exited with code 137; the engine restarts it (1 restart)"),
  }],
  ["paused: said, nothing done", desired(), observed({ servers: [server({ state: "paused" })] }), { kind: "hold", status: status("starting", "the server is paused") }],
  ["attached by an app whose network exists: joins it", desired({ attachedApps: ["app-a"] }), live({ appNetworks: [NET_A] }), { kind: "join-networks", connect: [NET_A], disconnect: [] }],
  ["on the network of an app that no longer attaches it: leaves it", desired({ attachedApps: [] }), live({ servers: [server({ addresses: { [NET_B]: "10.201.0.66" } })] }), { kind: "join-networks", connect: [], disconnect: [NET_B] }],
  ["an attaching app with no network yet: its first deploy connects it", desired({ attachedApps: ["app-a"] }), live({ appNetworks: [] }), { kind: "running" }],
];

const readiness: Row[] = [
  ["running, never probed (a fresh start, a restarted worker): probed", desired(), observed({ servers: [server()], imagePresent: null, volume: null }), { kind: "await-ready", renew: false, status: status("starting", "waiting for the server to accept connections") }],
  ["not accepting connections yet, within its budget: the prober keeps at it", desired(), live({ probe: { ready: false, detail: "not accepting connections yet", at: NOW - 500 } }), {
    kind: "await-ready",
    renew: false,
    status: status("starting", "waiting for the server to accept connections (not accepting connections yet)"),
  }],
  ["out of budget: failed, and probed again", desired(), live({ servers: [server({ startedAt: NOW - 200_000 })], probe: { ready: false, detail: "no answer within 5000 ms", at: NOW - 100, done: true } }), {
    kind: "await-ready",
    renew: true,
    status: status("failed", "the server does not accept connections: no answer within 5000 ms; still checking"),
  }],
  ["ready, attached by no service: running, said for a person", desired(), live(), { kind: "running", renew: false, runFor: null, wake: [], requeueAfterMs: null, status: status("running", "accepting connections as shopdb:5432; no service attaches it yet") }],
  ["ready, attached by two apps", desired({ attachedApps: ["app-a", "app-b"] }), live({ servers: [server({ addresses: { [NET_A]: "10.201.0.2", [NET_B]: "10.201.0.66" } })], appNetworks: [NET_A, NET_B] }), {
    kind: "running",
    status: status("running", "accepting connections as shopdb:5432; reachable by the services of 2 apps"),
  }],
  ["killed, restarted by the engine since it was seen ready: noticed, probed again", desired(), live({ servers: [server({ startedAt: NOW - 200, restartCount: 1, exitCode: 137 })], probe: ready(NOW - 5_000) }), {
    kind: "await-ready",
    renew: true,
    status: status("starting", "the server restarted after it exited with code 137 (1 restart); waiting for the server to accept connections"),
  }],
  ["ready, last checked over 30 s ago: still running, checked again", desired(), live({ probe: ready(NOW - 31_000) }), { kind: "running", renew: true, status: status("running", "accepting connections as shopdb:5432; no service attaches it yet") }],
  ["running, but the engine can start nothing in it after an engine restart: replaced on the same volume", desired(), live({ probe: { ready: false, detail: "the engine can no longer start processes in the container", at: NOW - 1_000, final: true, replace: true, done: true } }), {
    kind: "retire",
    container: server(),
    status: status("starting", `replacing ${SERVER}: the engine can no longer start processes in the container`),
  }],
  ["open backups are woken once it accepts connections", desired(), live({ openBackups: ["b-1", "b-2"] }), { kind: "running", wake: ["b-1", "b-2"] }],
];

const SCHEDULE = { cron: "0 * * * *", targetId: "t-1", keep: 3 };
const SINCE = new Date("2026-03-01T09:30:00Z");
const schedule: Row[] = [
  ["a run is due: recorded by its due time, the next one awaited", desired({ backupSchedule: SCHEDULE, scheduleSince: SINCE }), live({ lastScheduledFor: new Date("2026-03-01T11:00:00Z") }), {
    kind: "running",
    runFor: new Date("2026-03-01T12:00:00Z"),
    requeueAfterMs: new Date("2026-03-01T13:00:00Z").getTime() - NOW,
  }],
  ["nothing due: wait for the next due time", desired({ backupSchedule: SCHEDULE, scheduleSince: SINCE }), live({ lastScheduledFor: new Date("2026-03-01T12:00:00Z") }), { kind: "running", runFor: null, requeueAfterMs: new Date("2026-03-01T13:00:00Z").getTime() - NOW }],
  ["due times missed while no worker ran: one run, for the latest", desired({ backupSchedule: SCHEDULE, scheduleSince: SINCE }), live(), { kind: "running", runFor: new Date("2026-03-01T12:00:00Z") }],
  ["no run while the server does not accept connections", desired({ backupSchedule: SCHEDULE, scheduleSince: SINCE }), observed({ servers: [server()], imagePresent: null, volume: null }), { kind: "await-ready" }],
  ["open backups woken while it is not ready (to wait, or be marked interrupted)", desired(), observed({ servers: [server()], imagePresent: null, volume: null, openBackups: ["b-1"] }), { kind: "await-ready", wake: ["b-1"] }],
  ["open backups woken while the engine restarts it", desired(), observed({ servers: [server({ state: "restarting", exitCode: 1, restartCount: 3 })], openBackups: ["b-1"] }), { kind: "hold", wake: ["b-1"] }],
];

const restoreInto: Row[] = [
  ["into a new database: restoring, said, before anything starts", desired(), observed({ restore: restore(INTO) }), { kind: "restore", restore: restore(INTO), status: status("starting", "restoring the backup into the new database", null) }],
  ["into, its image not here yet: pulled first", desired(), observed({ restore: restore(INTO), imagePresent: false }), { kind: "pull" }],
  ["into, the image on the engine is not its to run: the restore fails, nothing starts", desired(), observed({ restore: restore(INTO), imageRefused: REFUSED }), { kind: "fail-restore", message: `restore failed: ${REFUSED}` }],
  ["into, cut short by a worker that stopped (its one-off left): started over", desired(), observed({ restore: restore({ ...INTO, runner: OTHER }), oneOffs: [oneOff("restore", "5f1e2d3c")] }), { kind: "restore", restore: restore({ ...INTO, runner: OTHER }) }],
  ["into, a server of it runs already: the restore fails", desired(), observed({ restore: restore(INTO), servers: [server()] }), { kind: "fail-restore", message: "restore failed: the new database is running already" }],
  ["into, failed: the new database never starts empty, and says why", desired({ failedInto: "restore failed: the backup's target was deleted" }), observed(), { kind: "hold", status: status("failed", "restore failed: the backup's target was deleted", null) }],
  ["into, succeeded (crash before its server was made): the server starts on the filled volume", desired(), observed(), { kind: "create", options: { HostConfig: { Mounts: [{ Source: VOLUME }] } } }],
];

const SWITCHED = { image: IMAGE, volume: RESTORED };
const replace: Row[] = [
  ["replace: restored into a fresh volume while the old server serves on", desired(), live({ restore: restore(), imagePresent: true, volume: "ours" }), { kind: "restore", restore: restore(), status: null }],
  ["replace, cut short mid-fill (its one-off left): started over, the old data untouched", desired(), live({ restore: restore({ runner: OTHER }), oneOffs: [oneOff("restore", "5f1e2d3c")], imagePresent: true, volume: "ours" }), { kind: "restore", status: null }],
  ["replace, crash after the switch, before it was recorded: recorded, never restored again", desired({ volume: RESTORED }), observed({ restore: restore(), servers: [server()] }), { kind: "finish-restore", restore: restore(), message: "restored the backup; the previous data is kept" }],
  ["replace, switched: the server on the old volume stops first", desired({ volume: RESTORED }), observed({ servers: [server()] }), { kind: "retire", container: server() }],
  ["replace, the old server gone: a new one on the restored volume", desired({ volume: RESTORED }), observed(), { kind: "create", options: { name: nameOf(SWITCHED), HostConfig: { Mounts: [{ Source: RESTORED }] } } }],
  ["replace failed: nothing pending, the database serves its old data", desired(), live(), { kind: "running" }],
];

/** Every table of the database pass, by what it covers. */
export const DATABASE_TABLES: [string, Row[]][] = [
  ["a deleted database", deleted],
  ["kept volumes", volumes],
  ["its server", server_],
  ["readiness (the prober's) and a crash the engine restarts", readiness],
  ["the backup schedule", schedule],
  ["a restore into a new database, every crash point", restoreInto],
  ["a replacing restore, every crash point", replace],
];

const backup = (over: Partial<BackupRecord> = {}): BackupRecord => ({
  id: "b-1",
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
  createdAt: new Date(NOW - 60_000),
  ...over,
});
const bDesired = (b: Partial<BackupRecord> | null = {}, db: DesiredDatabase | null = database()): BackupDesired => ({ backup: b && backup(b), database: db, runner: ME });
const bObserved = (over: Partial<BackupObserved> = {}): BackupObserved => ({ now: NOW, server: server(), probe: ready(), targetExists: null, ...over });
const KEY = `${SHORT}/${DB_ID}/2026-03-01T12:00:00.000Z.dump`;
const VERIFIED = { status: "verified" as const, runner: ME, objectKey: KEY, sha256: "ab", inventory: { tables: {}, schema: [] } };

/** [situation, desired, observed, what the step must be]. */
export type BackupRow = [string, BackupDesired, BackupObserved, Record<string, unknown>];

const backups: BackupRow[] = [
  ["the backup is gone", bDesired(null), bObserved(), { kind: "none" }],
  ["its database is gone", bDesired({}, null), bObserved(), { kind: "none" }],
  ["queued, the database not running: wait (its pass wakes this key), the deadline the requeue", bDesired(), bObserved({ server: null, probe: null }), { kind: "wait", message: "waiting for the database to accept connections", requeueAfterMs: 540_000 }],
  ["queued, the server runs but was never probed: wait", bDesired(), bObserved({ probe: null }), { kind: "wait" }],
  ["queued, the server restarted since it was seen ready: wait", bDesired(), bObserved({ server: server({ startedAt: NOW - 100 }), probe: ready(NOW - 5_000) }), { kind: "wait" }],
  ["queued for over 10 minutes with no database: failed", bDesired({ createdAt: new Date(NOW - 601_000) }), bObserved({ server: null }), { kind: "fail", message: "the database did not run within 10 minutes of this backup's request" }],
  ["queued, the database accepts connections: dump, upload, verify", bDesired(), bObserved(), { kind: "take", server: server(), staleObject: null }],
  ["crash mid-dump (another worker's run, nothing stored): interrupted", bDesired({ runner: OTHER }), bObserved(), { kind: "interrupt", objectKey: null, message: INTERRUPTED }],
  ["crash mid-verify (its object stored): interrupted, the object removed", bDesired({ runner: OTHER, objectKey: KEY }), bObserved(), { kind: "interrupt", objectKey: KEY }],
  ["crash mid-dump while the database is down too: interrupted all the same", bDesired({ runner: OTHER }), bObserved({ server: null, probe: null }), { kind: "interrupt" }],
  ["this process's attempt threw half way: taken again, its object removed first", bDesired({ runner: ME, objectKey: KEY }), bObserved(), { kind: "take", staleObject: KEY }],
  ["verified, nothing asked: nothing to do", bDesired(VERIFIED), bObserved(), { kind: "none" }],
  ["failed: final", bDesired({ status: "failed" }), bObserved(), { kind: "none" }],
  ["interrupted: final", bDesired({ status: "interrupted", runner: null }), bObserved(), { kind: "none" }],
  ["verify again: from the stored object, the database not needed", bDesired({ ...VERIFIED, verifyRequestedAt: new Date(NOW - 1_000) }), bObserved({ server: null, probe: null, targetExists: true }), { kind: "verify" }],
  ["verify again, its target deleted: said, the request cleared", bDesired({ ...VERIFIED, verifyRequestedAt: new Date(NOW - 1_000) }), bObserved({ targetExists: false }), { kind: "verify-no-target", message: "cannot verify: its backup target was deleted" }],
  ["verify again cut short by a worker restart: verified again", bDesired({ ...VERIFIED, runner: OTHER, verifyRequestedAt: new Date(NOW - 1_000) }), bObserved({ targetExists: true }), { kind: "verify" }],
  ["verify asked while the run itself is still going: the run comes first", bDesired({ verifyRequestedAt: new Date(NOW - 1_000) }), bObserved(), { kind: "take" }],
];

export const BACKUP_TABLES: [string, BackupRow[]][] = [["a backup, every crash point", backups]];

/** How many situations the tables hold. */
export const planCaseCount = (): number => [...DATABASE_TABLES, ...BACKUP_TABLES].reduce((n, [, rows]) => n + rows.length, 0);
