import type { ContainerCreateOptions } from "dockerode";
import type { ManagedContainer } from "@levelrail/docker";
import type { DatabasePhase } from "@levelrail/spec/database";
import { networkName } from "@levelrail/spec/naming";
import type { ProbeObservation } from "../application/prober";
import { dueRun } from "./schedule";
import type { DesiredDatabase, RestoreRecord } from "./store";

/** How long a server may take to accept connections after it starts (a fresh volume is initialised first). */
export const READY_BUDGET_MS = 180_000;
/** A live server's readiness is checked again when its last check is older than this (a hung server is seen). */
export const RECHECK_MS = 30_000;
/** Look again at least this often (a schedule's next run further away is reached by repeated waits). */
export const MAX_WAIT_MS = 3_600_000;

/** What the database's status row says. */
export interface DatabaseStatus {
  phase: DatabasePhase;
  message: string;
  container: string | null;
}

/** What the controller wants: the database as stored (null: deleted) and the worker's settings. */
export interface Desired {
  databaseId: string;
  database: DesiredDatabase | null;
  /** What is left to do for a deleted database (null: nothing, or it is not deleted). */
  teardown: { dropData: boolean } | null;
  shortName: string;
  /** The server container the database runs in now (its image and volume in the name's hash); "" when deleted. */
  serverName: string;
  /** The create options of that server (pure, from `databaseContainerOptions`); null when deleted. */
  serverOptions: (ContainerCreateOptions & { name: string }) | null;
  /** The port its engine listens on, for the status. */
  port: number;
}

/** What one pass saw. Fields a situation does not need are left unread (null). */
export interface Observed {
  now: number;
  /** The database's server containers (role `database`), from the container informer. */
  servers: ManagedContainer[];
  /** Its one-offs (a restore's, a verification's), from the container informer. */
  oneOffs: ManagedContainer[];
  /** The restore still to run (or cut short), oldest first. */
  restore: RestoreRecord | null;
  /** Whether the engine has the database's image; null: not read. */
  imagePresent: boolean | null;
  /**
   * Why the database may not run the image the engine has (`cachedImageAccess`: the cache is every
   * organization's, and a database pulls without a login); null: it may, or it was not asked (read
   * only before a container is made from the image).
   */
  imageRefused: string | null;
  /** The database's live volume: made with its labels, missing, or someone else's; null: not read. */
  volume: "ours" | "missing" | "foreign" | null;
  /** Of the networks of the apps that attach it, those that exist; null: not read (the server does not run). */
  appNetworks: string[] | null;
  /** The latest readiness probe of the wanted server (from the prober manager). */
  probe: ProbeObservation | null;
  /** The last lines of a server that is not running ("" otherwise). */
  logTail: string;
  /** The latest due time a scheduled run was recorded for; null: none, or not read. */
  lastScheduledFor: Date | null;
  /** Backups of the database that still need a pass. */
  openBackups: string[];
  /** A deleted database's volumes (read only when its data is to be dropped). */
  volumes: string[];
}

/** The one next step. A step that changes something returns at once for the next pass to observe the result. */
export type Step =
  /** Deleted, and nothing of it is left. */
  | { kind: "gone" }
  /** Deleted: its containers go (the server stopped cleanly first), its volumes too when asked, then the teardown row. */
  | { kind: "teardown"; remove: ManagedContainer[]; volumes: string[]; finish: boolean }
  /** Kept volumes an operator asked to remove (never the live one). */
  | { kind: "remove-volumes"; volumes: string[] }
  /** A replacing restore switched the database to its volume, and a crash came before it was recorded. */
  | { kind: "finish-restore"; restore: RestoreRecord; message: string }
  | { kind: "fail-restore"; restore: RestoreRecord; message: string }
  /** Fills the restore's fresh volume through a one-off server, checks it, then hands it over (off the slot). */
  | { kind: "restore"; restore: RestoreRecord; status: DatabaseStatus | null }
  /**
   * Nothing to do until something changes (an event, the operator, the resync): only the status.
   * `wake`: open backups, woken to learn the database is not there for them (or to be marked interrupted).
   */
  | { kind: "hold"; status: DatabaseStatus; wake: string[] }
  /** Pulls the image (off the slot, with a deadline); a failure is the status, and the runner's backoff retries. */
  | { kind: "pull"; image: string; status: DatabaseStatus }
  | { kind: "create-volume"; volume: string }
  /** One server per volume: the old one stops (cleanly) before the new one starts. */
  | { kind: "retire"; container: ManagedContainer; status: DatabaseStatus }
  | { kind: "create"; options: ContainerCreateOptions & { name: string }; status: DatabaseStatus }
  | { kind: "start"; container: ManagedContainer; status: DatabaseStatus }
  /** Joins the networks of the apps that attach it (under the database's name), leaves those of apps that no longer do. */
  | { kind: "join-networks"; container: ManagedContainer; connect: string[]; disconnect: string[] }
  /** Has the prober manager probe the server (again, when `renew`); it wakes the key when the answer changes. `wake`: as `hold`'s. */
  | { kind: "await-ready"; container: ManagedContainer; renew: boolean; status: DatabaseStatus; wake: string[] }
  /** Converged: record a due scheduled run, wake the open backups, and look again at the next due time. */
  | { kind: "running"; container: ManagedContainer; status: DatabaseStatus; runFor: Date | null; wake: string[]; renew: boolean; requeueAfterMs: number | null };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The status line of a server that accepts connections, written for a person. */
export function runningMessage(name: string, port: number, attachingApps: number): string {
  const who = attachingApps === 0 ? "no service attaches it yet" : `reachable by the services of ${plural(attachingApps, "app")}`;
  return `accepting connections as ${name}:${port}; ${who}`;
}

/** How a server that is not running looks; one that stays down, with its last lines (a restarting one's are its next run's). */
function exited(c: ManagedContainer, tail: string): string {
  if (c.state === "restarting") return `the server exited with code ${c.exitCode ?? "?"}; the engine restarts it (${plural(c.restartCount, "restart")})`;
  return `the server is ${c.state}${tail && (c.state === "exited" || c.state === "dead") ? `: ${tail}` : ""}`;
}

/** Pure: the one next step from what is wanted and what was seen. */
export function plan(d: Desired, o: Observed): Step {
  const db = d.database;
  const all = [...o.servers, ...o.oneOffs];
  if (!db) {
    if (!d.teardown && all.length === 0) return { kind: "gone" };
    return { kind: "teardown", remove: all, volumes: d.teardown?.dropData ? o.volumes : [], finish: d.teardown !== null };
  }
  const removable = db.volumesToRemove.filter((v) => v !== db.volume);
  if (removable.length > 0) return { kind: "remove-volumes", volumes: removable };

  const r = o.restore;
  if (r) {
    if (r.mode === "replace" && r.volume === db.volume) return { kind: "finish-restore", restore: r, message: restoredMessage(r, null) };
    if (r.mode === "into" && o.servers.length > 0) return { kind: "fail-restore", restore: r, message: "restore failed: the new database is running already" };
    if (o.imagePresent === false) return { kind: "pull", image: db.image, status: { phase: "pending", message: `pulling ${db.image}`, container: null } };
    if (o.imageRefused) return { kind: "fail-restore", restore: r, message: `restore failed: ${o.imageRefused}` };
    const status = r.mode === "into" ? { phase: "starting" as const, message: "restoring the backup into the new database", container: null } : null;
    return { kind: "restore", restore: r, status };
  }
  if (db.failedInto) return { kind: "hold", status: { phase: "failed", message: db.failedInto, container: null }, wake: o.openBackups };
  if (o.imagePresent === false) return { kind: "pull", image: db.image, status: { phase: "pending", message: `pulling ${db.image}`, container: null } };
  if (o.imageRefused) return { kind: "hold", status: { phase: "failed", message: o.imageRefused, container: null }, wake: o.openBackups };
  if (o.volume === "missing") return { kind: "create-volume", volume: db.volume };
  if (o.volume === "foreign") return { kind: "hold", status: { phase: "failed", message: `volume ${db.volume} exists but is not this database's; remove or rename it`, container: null }, wake: o.openBackups };

  const want = d.serverName;
  const old = o.servers.find((c) => c.name !== want);
  if (old) return { kind: "retire", container: old, status: { phase: "starting", message: `stopping ${old.name}: its image or data volume changed`, container: old.name } };
  const server = o.servers.find((c) => c.name === want);
  if (!server) {
    if (!d.serverOptions) throw new Error("plan: the server's options were not given");
    return { kind: "create", options: d.serverOptions, status: { phase: "starting", message: `starting ${want}`, container: want } };
  }
  if (server.state === "created" || server.state === "exited" || server.state === "dead") {
    return { kind: "start", container: server, status: { phase: "starting", message: `starting ${want}${server.state === "created" ? "" : ` (${exited(server, o.logTail)})`}`, container: want } };
  }
  if (server.state !== "running") return { kind: "hold", status: { phase: "starting", message: exited(server, o.logTail), container: want }, wake: o.openBackups };

  if (o.appNetworks === null) throw new Error("plan: the app networks were not observed");
  const wanted = new Set(db.attachedApps.map((appId) => networkName(d.shortName, appId)));
  const prefix = `${d.shortName}-app-`;
  const disconnect = Object.keys(server.addresses).filter((n) => n.startsWith(prefix) && !wanted.has(n));
  // An app whose network does not exist yet is skipped: its first deploy connects the database.
  const connect = o.appNetworks.filter((n) => wanted.has(n) && !(n in server.addresses));
  if (connect.length > 0 || disconnect.length > 0) return { kind: "join-networks", container: server, connect, disconnect };

  const probe = o.probe;
  // A probe from before the server's last start says nothing of it now: the engine restarted it.
  if (!probe || (probe.at ?? 0) < server.startedAt) {
    const restarted = probe && server.restartCount > 0 ? `the server restarted after it exited with code ${server.exitCode ?? "?"} (${plural(server.restartCount, "restart")}); ` : "";
    return { kind: "await-ready", container: server, renew: probe !== null, status: { phase: "starting", message: `${restarted}waiting for the server to accept connections`, container: want }, wake: o.openBackups };
  }
  // Running, but the engine can start nothing in it (its filesystem went with an engine restart):
  // it is stopped cleanly and a new container starts on the same volume.
  if (!probe.ready && probe.replace) {
    return { kind: "retire", container: server, status: { phase: "starting", message: `replacing ${want}: ${probe.detail}`, container: want } };
  }
  if (!probe.ready) {
    const spent = probe.final || o.now - server.startedAt >= READY_BUDGET_MS;
    const status: DatabaseStatus = spent
      ? { phase: "failed", message: `the server does not accept connections: ${probe.detail}; still checking`, container: want }
      : { phase: "starting", message: `waiting for the server to accept connections (${probe.detail})`, container: want };
    return { kind: "await-ready", container: server, renew: spent, status, wake: o.openBackups };
  }

  let runFor: Date | null = null;
  let wakeAt: Date | null = null;
  if (db.backupSchedule && db.scheduleSince) ({ runFor, wakeAt } = dueRun(db.backupSchedule.cron, db.scheduleSince, o.lastScheduledFor, new Date(o.now)));
  const status: DatabaseStatus = { phase: "running", message: runningMessage(db.name, d.port, wanted.size), container: want };
  const requeueAfterMs = wakeAt ? Math.min(MAX_WAIT_MS, Math.max(0, wakeAt.getTime() - o.now)) : null;
  return { kind: "running", container: server, status, runFor, wake: o.openBackups, renew: o.now - (probe.at ?? 0) > RECHECK_MS, requeueAfterMs };
}

/** What a finished restore says. `previous`: the volume a replacing restore switched away from. */
export function restoredMessage(r: Pick<RestoreRecord, "mode">, backupCreatedAt: Date | null, previous?: string): string {
  const when = backupCreatedAt ? ` of ${backupCreatedAt.toISOString()}` : "";
  return r.mode === "replace" ? `restored the backup${when}${previous ? `; the previous data is kept on volume ${previous}` : "; the previous data is kept"}` : `restored the backup${when}`;
}
