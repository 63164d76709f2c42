import type { ManagedContainer } from "@levelrail/docker";
import type { DatabaseEngineId } from "@levelrail/spec/database";
import { DatabaseRoles, Labels, carriesLabels, databaseFilter, databaseLabels, isBuiltImageName, networkName, noSuchImage } from "@levelrail/spec/naming";
import { cachedImageAccess } from "../application/image";
import type { ProberManager } from "../application/prober";
import type { BackupDesired, BackupObserved } from "./backup-plan";
import type { Desired, Observed } from "./plan";
import { isPinned, pinnedClientName } from "./pinned";
import type { ContainerPort, DatabaseEngine, ImagePort, NetworkPort, VolumePort } from "./ports";
import { type DatabaseProbeTarget, logTail } from "./readiness";
import { type DatabaseContainers, containersOf, databaseContainerOptions, serverName } from "./server";
import type { DatabaseStore, DesiredDatabase } from "./store";

export interface ObserveDeps {
  shortName: string;
  runtime: Pick<ImagePort, "imageId" | "imageRepoDigests" | "imageOrigin" | "registryAccess"> & Pick<VolumePort, "inspectVolume" | "listVolumes"> & Pick<NetworkPort, "inspectNetwork"> & Pick<ContainerPort, "containerLogs">;
  /** The database containers in memory (the container informer): no listing per pass. */
  containers: Pick<DatabaseContainers, "byDatabase">;
  store: Pick<DatabaseStore, "database" | "teardown" | "pendingRestore" | "lastScheduledFor" | "openBackups" | "backup" | "target">;
  engine: (id: DatabaseEngineId) => DatabaseEngine;
  /** Readiness of the database servers, probed outside the passes. */
  readiness: Pick<ProberManager<DatabaseProbeTarget>, "result">;
  runner: string;
  now: () => Date;
  /** A service's organization (null: no such service), to tell whose a built image is; absent: a built image's label alone decides. */
  serviceOrgs?: ((serviceId: string) => Promise<string | null>) | undefined;
}

/** The server the database runs in now, when it is running (its readiness is the prober's to say). */
export function liveServer(o: Pick<ObserveDeps, "shortName" | "containers">, d: DesiredDatabase): ManagedContainer | null {
  // Pinned to a node: every client runs in its client container on the manager, which reaches the server.
  if (isPinned(d)) {
    const client = pinnedClientName(o.shortName, d);
    return containersOf(o.containers, d.id, DatabaseRoles.client).find((c) => c.name === client && c.state === "running") ?? null;
  }
  const want = serverName(o, d);
  return containersOf(o.containers, d.id, DatabaseRoles.database).find((c) => c.name === want && c.state === "running") ?? null;
}

/**
 * Reads what one database pass needs, fresh: the database (or what is left of a deleted one), its
 * containers (from the container informer), and, only while the server is not running under its
 * current name, its image and volume; while it runs, the networks of the apps that attach it.
 */
export async function observeDatabase(o: ObserveDeps, id: string): Promise<{ desired: Desired; observed: Observed }> {
  const d = await o.store.database(id);
  const mine = containersOf(o.containers, id);
  const servers = mine.filter((c) => c.labels[Labels.role] === DatabaseRoles.database);
  const observed: Observed = {
    now: o.now().getTime(),
    servers,
    oneOffs: mine.filter((c) => !servers.includes(c)),
    restore: null,
    imagePresent: null,
    imageRefused: null,
    volume: null,
    appNetworks: null,
    probe: null,
    logTail: "",
    lastScheduledFor: null,
    openBackups: [],
    volumes: [],
  };
  if (!d) {
    const teardown = await o.store.teardown(id);
    if (teardown?.dropData) observed.volumes = (await o.runtime.listVolumes(databaseFilter(o.shortName, id))).filter((v) => v.labels[Labels.database] === id).map((v) => v.name);
    return { desired: { databaseId: id, database: null, teardown, shortName: o.shortName, serverName: "", serverOptions: null, port: 0 }, observed };
  }
  const want = serverName(o, d);
  const engine = o.engine(d.engine);
  const desired: Desired = {
    databaseId: id,
    database: d,
    teardown: null,
    shortName: o.shortName,
    serverName: want,
    serverOptions: databaseContainerOptions(o, d, { name: want, role: DatabaseRoles.database, volume: d.volume, credentials: d.credentials }),
    port: engine.port,
  };
  observed.restore = await o.store.pendingRestore(id);
  observed.openBackups = await o.store.openBackups(id);
  const server = servers.find((c) => c.name === want) ?? null;
  if (server) observed.probe = o.readiness.result(server.id);
  const live = server?.state === "running" && !observed.restore && !d.failedInto;
  if (!live) {
    await observeImage(o, d, observed, !server || observed.restore !== null);
    const volume = await o.runtime.inspectVolume(d.volume);
    observed.volume = !volume ? "missing" : carriesLabels(volume.labels, databaseLabels(o.shortName, { databaseId: id, environmentId: d.environmentId })) ? "ours" : "foreign";
    if (server?.state === "exited" || server?.state === "dead") observed.logTail = await logTail(o, server.id, 3);
    return { desired, observed };
  }
  // Networks it is on exist; of the others it should join, only those that exist can be joined.
  const wanted = d.attachedApps.map((appId) => networkName(o.shortName, appId));
  observed.appNetworks = [];
  for (const net of wanted) if (net in server.addresses || (await o.runtime.inspectNetwork(net))) observed.appNetworks.push(net);
  if (d.backupSchedule) observed.lastScheduledFor = await o.store.lastScheduledFor(id);
  return { desired, observed };
}

/**
 * Whether the engine has the database's image and, when a container is about to be made from it,
 * whether the database may run it: the engine's cache is every organization's, and a database pulls
 * without a login, so an image pulled from a registry under its name runs only once that registry
 * lets anyone pull it (the application controller's check, `cachedImageAccess`).
 */
export async function observeImage(o: Pick<ObserveDeps, "runtime" | "shortName" | "serviceOrgs">, d: DesiredDatabase, observed: Pick<Observed, "imagePresent" | "imageRefused">, creating: boolean): Promise<void> {
  const imageId = await o.runtime.imageId(d.image);
  observed.imagePresent = imageId !== null;
  // A built image is never pulled (no registry has it): one that is not here does not exist.
  if (imageId === null && creating && isBuiltImageName(o.shortName, d.image)) {
    observed.imagePresent = null;
    observed.imageRefused = noSuchImage(d.image);
    return;
  }
  if (imageId === null || !creating) return;
  const owner = { shortName: o.shortName, orgId: d.orgId, ...(o.serviceOrgs ? { orgOfService: o.serviceOrgs } : {}) };
  const access = await cachedImageAccess(o.runtime, d.image, imageId, null, owner, DATABASE_PULLER);
  if (access.kind === "gone") observed.imagePresent = false;
  if (access.kind === "refused") observed.imageRefused = access.message;
}

export const DATABASE_PULLER = {
  noun: "database",
  remedy: (ref: string) => `a database pulls its image without a registry login, so name one anyone may pull (or one built on this host) instead of ${ref}`,
};

/** Reads what one backup pass needs: the backup, its database, the database's running server and its readiness. */
export async function observeBackup(o: ObserveDeps, id: string): Promise<{ desired: BackupDesired; observed: BackupObserved }> {
  const backup = await o.store.backup(id);
  const database = backup ? await o.store.database(backup.databaseId) : null;
  const desired: BackupDesired = { backup, database, runner: o.runner };
  const server = database ? liveServer(o, database) : null;
  const observed: BackupObserved = { now: o.now().getTime(), server, probe: server ? o.readiness.result(server.id) : null, targetExists: null };
  if (backup && database && backup.status !== "running" && backup.verifyRequestedAt) {
    observed.targetExists = backup.targetId !== null && (await o.store.target(database.orgId, backup.targetId)) !== null;
  }
  return { desired, observed };
}
