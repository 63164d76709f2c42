import { createHash } from "node:crypto";
import type { ContainerCreateOptions } from "dockerode";
import type { ManagedContainer } from "@levelrail/docker";
import type { SwarmPort, SwarmSecretInfo, SwarmServiceInfo, SwarmServiceSpec, SwarmTask } from "@levelrail/docker/swarm";
import { backupKey, formatKey } from "@levelrail/spec/keys";
import { DatabaseRoles, Labels, databaseContainerName, databaseLabels, networkName } from "@levelrail/spec/naming";
import type { Redactor } from "@levelrail/spec/redact";
import type { Pass, ReconcileResult } from "../../reconcile/controller";
import { appOverlayMtu } from "../../network/app-overlay";
import { nodeLabels, swarmImage } from "../swarm-release/reconcile";
import type { ProbeObservation } from "../application/prober";
import { type ExecuteDeps, probe, pull, recordDueRun } from "./execute";
import { DATABASE_PULLER, observeImage } from "./observe";
import { type DatabaseStatus, READY_BUDGET_MS, RECHECK_MS, restoredMessage, runningMessage } from "./plan";
import { pinnedRestoreServer } from "./pinned-restore";
import { runRestore } from "./restore";
import type { DatabaseEngine } from "./ports";
import { dueRun } from "./schedule";
import { type DatabaseContainers, containersOf } from "./server";
import type { DesiredDatabase, RestoreRecord } from "./store";

/**
 * A database pinned to a node (a placement, on a swarm): its server is a one-replica swarm service
 * constrained to nodes with those labels, its data a named volume the engine of that node makes and
 * keeps (a task placed there again finds it), its password a swarm secret (never in the service's
 * spec). The worker cannot exec into a task on another node, so every client the controller runs
 * (readiness, snapshot, dump) runs in a small "client" container of the same image on the manager's
 * engine, joined to the database's own overlay, with `PGHOST` naming the server: the backup code
 * sees that container as the server and works unchanged.
 */

/** The overlay the server and its client share (`<short>-db-<databaseId>`); app networks are joined as well. */
export const pinnedNetworkName = (shortName: string, databaseId: string) => `${shortName}-db-${databaseId}`;
/** The swarm secret holding the password (`<short>-db-<databaseId>-password`). */
export const pinnedSecretName = (shortName: string, databaseId: string) => `${shortName}-db-${databaseId}-password`;
/** The server's swarm service: one name for its whole life (an image change is a rolling update, stop-first: one server per volume). */
export const pinnedServiceName = (shortName: string, d: Pick<DesiredDatabase, "id" | "name">) => `${shortName}-db-${d.name}-${d.id.slice(0, 8)}`;
/** The client container on the manager (its image in the name's hash: a new image makes a new client). */
export const pinnedClientName = (shortName: string, d: Pick<DesiredDatabase, "id" | "name" | "image">) =>
  databaseContainerName(shortName, `${d.name}-client`, { databaseId: d.id, image: d.image, volume: "client" });

/** The label holding a hash of the spec the service was last given: a differing hash is an update. */
export const SPEC_HASH_LABEL = "levelrail.spec-hash";
/** The label naming the app networks the service was given (comma-separated): the deploy's attacher reads it. */
export const APP_NETWORKS_LABEL = "levelrail.app-networks";
const SECRET_FILE = "postgres-password";
/** A pinned server is looked at again this often while it runs (its task may move or restart meanwhile). */
export const PINNED_RECHECK_MS = 15_000;

export const isPinned = (d: Pick<DesiredDatabase, "placement">) => Object.keys(d.placement).length > 0;

/** The swarm calls the pinned path makes. */
export type PinnedSwarm = Pick<
  SwarmPort,
  "listServices" | "listTasks" | "createService" | "updateService" | "removeService" | "listNodes" | "createOverlayNetwork" | "listSecrets" | "createSecret" | "removeSecret"
  | "resolveImage"
>;

/**
 * The server's spec with its image as every node must run it (`swarmImage`: pinned to the digest the
 * registry confirms to no login, or built on the manager's host), or why it cannot run: another
 * organization's copy a node holds never stands in for it. The spec's hash label stays the desired one.
 */
async function serverSpec(x: ExecuteDeps & PinnedDeps, db: DesiredDatabase, spec: SwarmServiceSpec): Promise<{ ok: true; spec: SwarmServiceSpec } | { ok: false; message: string }> {
  const owner = { shortName: x.shortName, orgId: db.orgId, ...(x.serviceOrgs ? { orgOfService: x.serviceOrgs } : {}) };
  const image = await swarmImage(x.runtime, x.swarm, owner, spec.image, null, DATABASE_PULLER);
  return image.ok ? { ok: true, spec: { ...spec, image: image.image } } : image;
}

/** What one pass of a pinned database saw. */
export interface PinnedObserved {
  now: number;
  /** Its swarm services (role `database`): the wanted one, and any other a crash left. */
  services: SwarmServiceInfo[];
  /** The tasks of the wanted service. */
  tasks: SwarmTask[];
  /** Its client containers on the manager. */
  clients: ManagedContainer[];
  /**
   * Whether the manager's engine has the image its client (and a verification's one-off) runs, and
   * why the database may not run the copy it has; read only while the client is to be made (null otherwise).
   */
  imagePresent: boolean | null;
  imageRefused: string | null;
  network: boolean;
  secret: SwarmSecretInfo | null;
  /** Of the networks of the apps that attach it, those that exist. */
  appNetworks: string[];
  /** Node id → its name, for the status (every node of the swarm). */
  nodes: Record<string, string>;
  /** The node the database is pinned to, as the swarm reports it (null: not pinned yet, or gone). */
  home: { state: string; availability: string } | null;
  /** The ready, active nodes carrying every label of the placement, by name: where a database not yet on a node may go. */
  candidates: { id: string; name: string }[];
  /** The MTU the database's overlay gets (as the apps'). */
  mtu: number | null;
  probe: ProbeObservation | null;
  restore: RestoreRecord | null;
  lastScheduledFor: Date | null;
  openBackups: string[];
}

export interface PinnedDesired {
  database: DesiredDatabase;
  shortName: string;
  spec: SwarmServiceSpec;
  client: ContainerCreateOptions & { name: string };
  port: number;
}

export type PinnedStep =
  | { kind: "fail-restore"; restore: RestoreRecord; message: string }
  | { kind: "finish-restore"; restore: RestoreRecord; message: string }
  /** Fills the restore's fresh volume through a restore server on the database's node, then switches the database to it (off the slot). */
  | { kind: "restore"; restore: RestoreRecord; client: ManagedContainer; status: DatabaseStatus }
  | { kind: "hold"; status: DatabaseStatus; wake: string[]; requeueAfterMs: number | null }
  /** Records the node chosen for it (its volume will be there), once. */
  | { kind: "pin-node"; nodeId: string; name: string }
  | { kind: "create-secret" }
  | { kind: "create-network" }
  | { kind: "remove-services"; services: SwarmServiceInfo[] }
  | { kind: "create-service"; status: DatabaseStatus }
  | { kind: "update-service"; service: SwarmServiceInfo; status: DatabaseStatus }
  | { kind: "remove-clients"; containers: ManagedContainer[] }
  /** Pulls the image on the manager for its client (the nodes pull it themselves for the server). */
  | { kind: "pull"; image: string; status: DatabaseStatus }
  | { kind: "create-client" }
  | { kind: "start-client"; container: ManagedContainer }
  | { kind: "await-ready"; client: ManagedContainer; host: string; renew: boolean; status: DatabaseStatus; wake: string[] }
  | { kind: "running"; client: ManagedContainer; host: string; status: DatabaseStatus; runFor: Date | null; wake: string[]; renew: boolean; requeueAfterMs: number };

const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 16);

/** `node.labels.<key>==<value>` for each label of the placement (keys and values were checked on the way in). */
export const placementConstraints = (placement: Record<string, string>) =>
  Object.entries(placement)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `node.labels.${k}==${v}`);

/** Pure: the server's service spec (its hash and app networks in its labels). `secretId`: the password's secret. */
export function pinnedServiceSpec(shortName: string, d: DesiredDatabase, engine: DatabaseEngine, appNetworks: readonly string[], secretId: string): SwarmServiceSpec {
  const labels = databaseLabels(shortName, { databaseId: d.id, environmentId: d.environmentId }, DatabaseRoles.database);
  // The password comes from the secret's file (`POSTGRES_PASSWORD_FILE`), never the spec's env.
  const env = Object.fromEntries(
    engine
      .containerEnv({ ...d.credentials, password: "" })
      .filter((kv) => !kv.startsWith("POSTGRES_PASSWORD="))
      .map((kv) => [kv.slice(0, kv.indexOf("=")), kv.slice(kv.indexOf("=") + 1)]),
  );
  env.POSTGRES_PASSWORD_FILE = `/run/secrets/${SECRET_FILE}`;
  const nets = [...appNetworks].sort();
  const spec: SwarmServiceSpec = {
    name: pinnedServiceName(shortName, d),
    image: d.image,
    replicas: 1,
    labels: { ...labels, [APP_NETWORKS_LABEL]: nets.join(",") },
    containerLabels: labels,
    env,
    networks: [pinnedNetworkName(shortName, d.id), ...nets].map((target) => ({ target, aliases: [d.name] })),
    // Its node, once chosen: a task placed on another node of the same labels would find no data there.
    constraints: d.nodeId ? [`node.id==${d.nodeId}`] : placementConstraints(d.placement),
    // Readable by the image's own user too: the official entrypoint reads it after it dropped root.
    secrets: [{ secretId, secretName: pinnedSecretName(shortName, d.id), file: SECRET_FILE, mode: 0o444 }],
    mounts: [{ source: d.volume, target: engine.dataPath, labels: databaseLabels(shortName, { databaseId: d.id, environmentId: d.environmentId }) }],
    // PostgreSQL's fast shutdown gets its time; the old server is gone before a new one starts.
    stopGraceSeconds: 30,
    updateOrder: "stop-first",
    endpointMode: "dnsrr",
  };
  return { ...spec, labels: { ...spec.labels, [SPEC_HASH_LABEL]: hash({ ...spec, labels: undefined, secrets: spec.secrets.map((s) => s.secretName) }) } };
}

/** Pure: the client container's create options: the image's `sleep`, on the database's overlay, `PGHOST` naming the server. */
export function pinnedClientOptions(shortName: string, d: DesiredDatabase, engine: DatabaseEngine): ContainerCreateOptions & { name: string } {
  return {
    name: pinnedClientName(shortName, d),
    Image: d.image,
    Entrypoint: ["sleep"],
    Cmd: ["2147483647"],
    Env: [`PGHOST=${d.name}`, `PGPORT=${engine.port}`],
    Labels: databaseLabels(shortName, { databaseId: d.id, environmentId: d.environmentId }, DatabaseRoles.client),
    HostConfig: {
      NetworkMode: pinnedNetworkName(shortName, d.id),
      RestartPolicy: { Name: "unless-stopped" },
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "1" } },
      // It only ever runs psql, pg_dump and pg_isready.
      Memory: 256 * 1024 * 1024,
      PidsLimit: 64,
    },
  };
}

const live = (t: SwarmTask) => t.desiredState === "running";

/** Why the swarm has no running task for the server, from its newest task, for a person. */
function taskWait(tasks: readonly SwarmTask[], where: string): string {
  const newest = [...tasks].sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!newest) return `waiting for the swarm to start the server on ${where}`;
  const why = newest.error || newest.message;
  return `waiting for the server's task on ${where} (${newest.state}${why ? `: ${why}` : ""})`;
}

/**
 * Why a pinned database's server cannot run, when it is its node's doing: drained (its task cannot
 * go anywhere else), or not ready (its engine is away). Null while the node could run it.
 */
function homeDown(home: PinnedObserved["home"], node: string, volume: string): DatabaseStatus | null {
  if (!home) return null;
  if (home.availability === "drain") {
    return { phase: "stopped", message: `stopped: its node ${node} is drained and its data volume ${volume} is there; activate ${node} on the Nodes page to start it again`, container: null };
  }
  if (home.state !== "ready") {
    return { phase: "failed", message: `its node ${node} is ${home.state} (its data volume ${volume} is there); it starts again when the node is back`, container: null };
  }
  return null;
}

/** Pure: the one next step of a pinned database. */
export function planPinned(d: PinnedDesired, o: PinnedObserved): PinnedStep {
  const db = d.database;
  const r = o.restore;
  if (r?.mode === "replace" && r.volume === db.volume) return { kind: "finish-restore", restore: r, message: restoredMessage(r, null) };
  // A new database made by a restore is never pinned (the API makes it without a placement).
  if (r && r.mode !== "replace") return { kind: "fail-restore", restore: r, message: "restore failed: a restore cannot fill a new database pinned to a node" };
  if (db.failedInto) return { kind: "hold", status: { phase: "failed", message: db.failedInto, container: null }, wake: o.openBackups, requeueAfterMs: null };
  const labelled = Object.entries(db.placement).map(([k, v]) => `${k}=${v}`).join(", ");
  if (!db.nodeId) {
    const first = o.candidates[0];
    if (!first) return { kind: "hold", status: { phase: "pending", message: `no ready, active node is labelled ${labelled}: label one on the Nodes page`, container: null }, wake: o.openBackups, requeueAfterMs: 10_000 };
    return { kind: "pin-node", nodeId: first.id, name: first.name };
  }
  if (!(db.nodeId in o.nodes)) {
    return { kind: "hold", status: { phase: "failed", message: `its node (${db.nodeId}) is no longer in the swarm; its data volume ${db.volume} was there`, container: null }, wake: o.openBackups, requeueAfterMs: 30_000 };
  }
  if (!o.secret) return { kind: "create-secret" };
  if (!o.network) return { kind: "create-network" };
  const others = o.services.filter((s) => s.name !== d.spec.name);
  if (others.length > 0) return { kind: "remove-services", services: others };
  const service = o.services.find((s) => s.name === d.spec.name);
  const name = d.spec.name;
  if (!service) return { kind: "create-service", status: { phase: "starting", message: `starting ${name} on ${o.nodes[db.nodeId]}`, container: name } };
  if (service.labels[SPEC_HASH_LABEL] !== d.spec.labels[SPEC_HASH_LABEL]) {
    return { kind: "update-service", service, status: { phase: "starting", message: `updating ${name} (its image or the apps it serves changed); the server restarts`, container: name } };
  }
  const stale = o.clients.filter((c) => c.name !== d.client.name);
  if (stale.length > 0) return { kind: "remove-clients", containers: stale };
  const client = o.clients.find((c) => c.name === d.client.name);
  if (!client) {
    if (o.imagePresent === false) return { kind: "pull", image: db.image, status: { phase: "starting", message: `pulling ${db.image} on the manager for the database's client`, container: name } };
    if (o.imageRefused) return { kind: "hold", status: { phase: "failed", message: o.imageRefused, container: name }, wake: o.openBackups, requeueAfterMs: null };
    return { kind: "create-client" };
  }
  if (client.state !== "running") return { kind: "start-client", container: client };
  // The live server keeps serving its old data meanwhile; it is switched to the filled volume after.
  if (r) return { kind: "restore", restore: r, client, status: { phase: "starting", message: "restoring the backup into a fresh volume on its node; the database serves its current data meanwhile", container: name } };

  const task = o.tasks.filter((t) => live(t) && t.state === "running").sort((a, b) => b.updatedAt - a.updatedAt)[0];
  if (!task) {
    const home = o.nodes[db.nodeId] ?? db.nodeId;
    return { kind: "hold", status: homeDown(o.home, home, db.volume) ?? { phase: "starting", message: taskWait(o.tasks, home), container: name }, wake: o.openBackups, requeueAfterMs: 2_000 };
  }
  const node = (task.nodeId && o.nodes[task.nodeId]) || "its node";
  const since = Math.max(task.updatedAt, client.startedAt);
  const probe = o.probe;
  if (!probe || (probe.at ?? 0) < since) {
    return { kind: "await-ready", client, host: db.name, renew: probe !== null, status: { phase: "starting", message: `waiting for the server on ${node} to accept connections`, container: name }, wake: o.openBackups };
  }
  if (!probe.ready) {
    const spent = probe.final || o.now - since >= READY_BUDGET_MS;
    const status: DatabaseStatus = spent
      ? { phase: "failed", message: `the server on ${node} does not accept connections: ${probe.detail}; still checking`, container: name }
      : { phase: "starting", message: `waiting for the server on ${node} to accept connections (${probe.detail})`, container: name };
    return { kind: "await-ready", client, host: db.name, renew: spent, status, wake: o.openBackups };
  }
  let runFor: Date | null = null;
  let wakeAt: Date | null = null;
  if (db.backupSchedule && db.scheduleSince) ({ runFor, wakeAt } = dueRun(db.backupSchedule.cron, db.scheduleSince, o.lastScheduledFor, new Date(o.now)));
  const attaching = db.attachedApps.length;
  const status: DatabaseStatus = { phase: "running", message: `${runningMessage(db.name, d.port, attaching)}; on node ${node}`, container: name };
  const untilDue = wakeAt ? Math.max(0, wakeAt.getTime() - o.now) : Number.POSITIVE_INFINITY;
  return { kind: "running", client, host: db.name, status, runFor, wake: o.openBackups, renew: o.now - (probe.at ?? 0) > RECHECK_MS, requeueAfterMs: Math.min(PINNED_RECHECK_MS, untilDue) };
}

/** What the pinned path needs beyond the database controller's deps: the swarm, through the manager. */
export interface PinnedDeps {
  swarm: PinnedSwarm;
}

/** Reads what one pass of a pinned database needs. */
export async function observePinned(
  x: Pick<ExecuteDeps, "shortName" | "runtime" | "readiness" | "store" | "now" | "serviceOrgs"> & { containers: Pick<DatabaseContainers, "byDatabase"> } & PinnedDeps,
  db: DesiredDatabase,
  engine: DatabaseEngine,
): Promise<{ desired: PinnedDesired; observed: PinnedObserved }> {
  const mine = [`${Labels.instance}=${x.shortName}`, `${Labels.database}=${db.id}`];
  const [services, secrets, nodes] = await Promise.all([x.swarm.listServices([...mine, `${Labels.role}=${DatabaseRoles.database}`]), x.swarm.listSecrets(mine), x.swarm.listNodes()]);
  const secret = secrets.find((s) => s.name === pinnedSecretName(x.shortName, db.id)) ?? null;
  const wantedApps = db.attachedApps.map((appId) => networkName(x.shortName, appId));
  const appNetworks: string[] = [];
  for (const net of wantedApps) if (await x.runtime.inspectNetwork(net)) appNetworks.push(net);
  const spec = pinnedServiceSpec(x.shortName, db, engine, appNetworks, secret?.id ?? "");
  const wanted = services.find((s) => s.name === spec.name);
  const clients = containersOf(x.containers, db.id, DatabaseRoles.client);
  const names = nodeLabels(nodes);
  const client = clients.find((c) => c.name === pinnedClientName(x.shortName, db));
  const observed: PinnedObserved = {
    now: x.now().getTime(),
    services,
    tasks: wanted ? await x.swarm.listTasks(wanted.id) : [],
    clients,
    imagePresent: null,
    imageRefused: null,
    network: (await x.runtime.inspectNetwork(pinnedNetworkName(x.shortName, db.id))) !== null,
    secret,
    appNetworks,
    nodes: names,
    home: ((n) => (n ? { state: n.state, availability: n.availability } : null))(nodes.find((n) => n.id === db.nodeId)),
    candidates: nodes
      .filter((n) => n.state === "ready" && n.availability === "active" && Object.entries(db.placement).every(([k, v]) => n.labels[k] === v))
      .map((n) => ({ id: n.id, name: names[n.id] ?? n.hostname }))
      .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
    mtu: appOverlayMtu(nodes),
    probe: client ? x.readiness.result(client.id) : null,
    restore: await x.store.pendingRestore(db.id),
    lastScheduledFor: db.backupSchedule ? await x.store.lastScheduledFor(db.id) : null,
    openBackups: await x.store.openBackups(db.id),
  };
  if (!client) await observeImage(x, db, observed, true);
  return { desired: { database: db, shortName: x.shortName, spec, client: pinnedClientOptions(x.shortName, db, engine), port: engine.port }, observed };
}

const NEXT: ReconcileResult = { requeueAfterMs: 0 };

/** Performs one planned step of a pinned database and writes its status (when the step has one). */
export async function executePinned(x: ExecuteDeps & PinnedDeps, d: PinnedDesired, o: PinnedObserved, step: PinnedStep, pass: Pass, redact: Redactor): Promise<ReconcileResult | void> {
  const db = d.database;
  const status = (s: DatabaseStatus) => x.store.setStatus(db.id, s.phase, redact(s.message), s.container);
  const wake = (ids: string[]) => {
    for (const b of ids) x.wake(formatKey(backupKey(b)));
  };
  const labels = databaseLabels(x.shortName, { databaseId: db.id, environmentId: db.environmentId });
  switch (step.kind) {
    case "fail-restore":
      await x.store.updateRestore(step.restore.id, { status: "failed", message: step.message, finished: true });
      return NEXT;
    case "finish-restore":
      await x.store.updateRestore(step.restore.id, { status: "succeeded", message: step.message, finished: true });
      return NEXT;
    case "restore": {
      await status(step.status);
      const server = pinnedRestoreServer(x, db, step.restore, step.client.id, o.secret?.id ?? "");
      const done = await pass.waiting(() => runRestore(x, db, step.restore, redact, server));
      x.log(`[database] ${db.name}: ${done.message}`);
      return NEXT; // the switched volume updates the service (stop-first) next pass
    }
    case "hold":
      wake(step.wake);
      await status(step.status);
      return step.requeueAfterMs === null ? undefined : { requeueAfterMs: step.requeueAfterMs };
    case "pin-node":
      await x.store.pinNode(db.id, step.nodeId);
      x.log(`[database] ${db.name}: placed on ${step.name}; its server and data volume stay there`);
      return NEXT;
    case "create-secret":
      await x.swarm.createSecret(pinnedSecretName(x.shortName, db.id), labels, db.credentials.password);
      return NEXT;
    case "create-network":
      await x.swarm.createOverlayNetwork({ name: pinnedNetworkName(x.shortName, db.id), labels, subnet: null, gateway: null, encrypted: false, mtu: o.mtu });
      return NEXT;
    case "remove-services":
      for (const s of step.services) await x.swarm.removeService(s.id);
      return NEXT;
    case "create-service":
    case "update-service": {
      const server = await serverSpec(x, db, d.spec);
      if (!server.ok) {
        // Looked at again later (a registry back, a login made public); nothing runs meanwhile.
        await status({ phase: "failed", message: server.message, container: null });
        return { requeueAfterMs: 60_000 };
      }
      await status(step.status);
      if (step.kind === "create-service") await x.swarm.createService(server.spec);
      else await x.swarm.updateService(step.service.id, step.service.version, server.spec);
      return NEXT;
    }
    case "remove-clients":
      for (const c of step.containers) {
        await x.runtime.removeContainer(c.id);
        x.containers.forget(c.id);
        x.readiness.forget(c.id);
      }
      return NEXT;
    case "pull":
      return pull(x, step, status, pass, redact);
    case "create-client": {
      const id = await x.runtime.createContainer(d.client);
      await x.containers.refresh(id ?? d.client.name);
      return NEXT;
    }
    case "start-client":
      try {
        await x.runtime.startContainer(step.container.id);
      } finally {
        await x.containers.refresh(step.container.id);
      }
      return NEXT;
    case "await-ready":
      probe(x, db, step.client, step.renew, step.host);
      wake(step.wake);
      return void (await status(step.status));
    case "running":
      await recordDueRun(x, db, step.runFor);
      wake(step.wake);
      if (step.renew) probe(x, db, step.client, true, step.host);
      await status(step.status);
      return { requeueAfterMs: step.requeueAfterMs };
    default: {
      const unknown: never = step;
      throw new Error(`no executor for step ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * A deleted database's swarm objects go: its services first (their tasks end, so the answer is
 * "pending" once: look again shortly), then its secret and its overlay. Its volume stays on the node
 * it was on (the manager cannot reach another node's volumes): the answer's line says where. Its
 * client containers go before its overlay (they are on it). "none": it had no swarm objects (it
 * was not pinned, or they are gone).
 */
export async function tearDownPinned(
  x: Pick<ExecuteDeps, "shortName" | "runtime" | "containers" | "readiness"> & PinnedDeps,
  databaseId: string,
): Promise<"pending" | "none" | { done: string }> {
  const mine = [`${Labels.instance}=${x.shortName}`, `${Labels.database}=${databaseId}`];
  const [services, secrets] = await Promise.all([x.swarm.listServices(mine), x.swarm.listSecrets(mine)]);
  const network = await x.runtime.inspectNetwork(pinnedNetworkName(x.shortName, databaseId));
  if (services.length === 0 && secrets.length === 0 && !network) return "none";
  if (services.length > 0) {
    const nodes = await x.swarm.listNodes();
    const on = new Set<string>();
    for (const s of services) {
      for (const t of await x.swarm.listTasks(s.id)) if (t.nodeId) on.add(t.nodeId);
      await x.swarm.removeService(s.id);
    }
    const names = nodes.filter((n) => on.has(n.id)).map((n) => n.hostname || n.name);
    if (names.length > 0) pinnedVolumeLeft.set(databaseId, names.join(", "));
    return "pending";
  }
  for (const s of secrets) await x.swarm.removeSecret(s.id);
  for (const c of containersOf(x.containers, databaseId, DatabaseRoles.client)) {
    await x.runtime.removeContainer(c.id);
    x.containers.forget(c.id);
    x.readiness.forget(c.id);
  }
  // Refused while a task of the removed service still ends there: the runner's backoff tries again.
  if (network) await x.runtime.removeNetwork(pinnedNetworkName(x.shortName, databaseId));
  const where = pinnedVolumeLeft.get(databaseId);
  pinnedVolumeLeft.delete(databaseId);
  return { done: where ? `its data volume stays on ${where}: the manager cannot remove another node's volumes (docker volume rm there)` : "its swarm service, secret and network are removed" };
}

/** Where a deleted pinned database's volume was left, between the passes of its teardown (for the log line). */
const pinnedVolumeLeft = new Map<string, string>();
