import type Docker from "dockerode";
import type { ManagedContainer } from "@levelrail/docker";
import { Labels, type DatabaseRole, DatabaseRoles, carriesLabels, databaseContainerName, databaseLabels, networkName } from "@levelrail/spec/naming";
import { DEFAULT_RESOURCES } from "@levelrail/spec/service";
import { hostLimits } from "../../containers/limits";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { APP_NETWORKS_LABEL } from "./pinned";
import type { ContainerPort, DatabaseCredentials, DatabaseEngine, NetworkPort, VolumePort } from "./ports";
import type { DesiredDatabase } from "./store";

/** What building and running a database's containers needs. */
export interface ServerDeps {
  shortName: string;
  runtime: ContainerPort & VolumePort;
  engine: (id: DesiredDatabase["engine"]) => DatabaseEngine;
}

/**
 * The database containers in memory (the container informer), as the database code reads them:
 * no listing per pass. Whoever changes a container tells it before the pass ends.
 */
export interface DatabaseContainers {
  /** The database's containers, its one-offs included (by the database label). */
  byDatabase(databaseId: string): ManagedContainer[];
  /** Inspects the container (by id or name) again; one that is gone leaves the index. */
  refresh(idOrName: string): Promise<void>;
  /** The container was removed. */
  forget(id: string): void;
}

const MiB = 1024 * 1024;

/**
 * The create options of one container of a database: the server itself, or a restore's or a
 * verification's one-off, on `volume`. No network at first (`none`): the server joins its attached
 * apps' networks afterwards, the one-offs never do.
 */
export function databaseContainerOptions(
  x: Pick<ServerDeps, "shortName" | "engine">,
  d: Pick<DesiredDatabase, "id" | "environmentId" | "engine" | "image">,
  o: { name: string; role: DatabaseRole; volume: string; credentials: DatabaseCredentials },
): Docker.ContainerCreateOptions & { name: string } {
  const engine = x.engine(d.engine);
  return {
    name: o.name,
    Image: d.image,
    Env: engine.containerEnv(o.credentials),
    Labels: databaseLabels(x.shortName, { databaseId: d.id, environmentId: d.environmentId }, o.role),
    HostConfig: {
      Mounts: [{ Type: "volume", Source: o.volume, Target: engine.dataPath }],
      NetworkMode: "none",
      RestartPolicy: { Name: o.role === DatabaseRoles.database ? "unless-stopped" : "no" },
      // PostgreSQL's shared memory for parallel queries (Docker's default 64 MiB is often too small).
      ShmSize: 256 * MiB,
      LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
      ...hostLimits("database", DEFAULT_RESOURCES),
    },
  };
}

/** The volume `name` of the database exists (made with its labels when it did not); one of someone else's is refused. */
export async function ensureVolume(x: { shortName: string; runtime: VolumePort }, d: Pick<DesiredDatabase, "id" | "environmentId">, name: string): Promise<void> {
  const labels = databaseLabels(x.shortName, { databaseId: d.id, environmentId: d.environmentId });
  const found = await x.runtime.inspectVolume(name);
  if (found) {
    if (!carriesLabels(found.labels, labels)) throw new Error(`volume ${name} exists but is not this database's; remove or rename it`);
    return;
  }
  await x.runtime.createVolume(name, labels);
}

/** The database's containers of one role (or all), checked by their labels (the index holds only this instance's). */
export function containersOf(index: Pick<DatabaseContainers, "byDatabase">, databaseId: string, role?: DatabaseRole): ManagedContainer[] {
  return index.byDatabase(databaseId).filter((c) => c.labels[Labels.database] === databaseId && (role === undefined || c.labels[Labels.role] === role));
}

/** Stops (cleanly: PostgreSQL's fast shutdown) and removes a container. */
export async function retire(x: { runtime: Pick<ContainerPort, "stopContainer" | "removeContainer"> }, c: { id: string }, timeoutSeconds = 30): Promise<void> {
  await x.runtime.stopContainer(c.id, timeoutSeconds);
  await x.runtime.removeContainer(c.id);
}

/** The name the server container of the database has now (its image and volume in the hash). */
export const serverName = (x: { shortName: string }, d: Pick<DesiredDatabase, "id" | "name" | "image" | "volume">) =>
  databaseContainerName(x.shortName, d.name, { databaseId: d.id, image: d.image, volume: d.volume });

/** Connects a running server to one app network under the database's name (leaving `none` first). */
export async function attachDatabase(x: { runtime: Pick<NetworkPort, "connectNetwork" | "disconnectNetwork"> }, c: ManagedContainer, network: string, alias: string): Promise<void> {
  if (network in c.addresses) return;
  // Made on `none`, which admits no other network beside it; once it has left, this is refused (and fine).
  await x.runtime.disconnectNetwork("none", c.id).catch(() => {});
  await x.runtime.connectNetwork(network, c.id, [alias]);
}

/** One database a service attaches, as connecting it needs. */
export type AttachedDatabase = Pick<DesiredDatabase, "id" | "name" | "image" | "volume"> & { placement?: Record<string, string> };

/** On a swarm: what the attacher reads of a database pinned to a node, and how it wakes that database. */
export interface PinnedAttach {
  swarm: Pick<SwarmPort, "listServices" | "listTasks">;
  wake(databaseId: string): void;
}

/**
 * The application controller's `DatabaseAttacher`: joins each database the service attaches to the
 * service's app network; rejects (the deploy retries) while one has no running server.
 */
export function databaseAttacher(
  x: { shortName: string; runtime: Pick<NetworkPort, "connectNetwork" | "disconnectNetwork">; containers: DatabaseContainers; pinned?: PinnedAttach },
  attachedTo: (serviceId: string) => Promise<{ appId: string; databases: AttachedDatabase[] } | null>,
) {
  return {
    async attach(serviceId: string): Promise<void> {
      const found = await attachedTo(serviceId);
      if (!found) return;
      const network = networkName(x.shortName, found.appId);
      for (const d of found.databases) {
        if (d.placement && Object.keys(d.placement).length > 0) {
          await pinnedJoined(x, d, network);
          continue;
        }
        const want = serverName(x, d);
        const server = containersOf(x.containers, d.id, DatabaseRoles.database).find((c) => c.name === want && c.state === "running");
        if (!server) throw new Error(`database ${d.name} is not running yet; the deploy goes on once it is`);
        await attachDatabase(x, server, network, d.name);
        await x.containers.refresh(server.id);
      }
    },
  };
}

/**
 * A pinned database's server joins app networks by an update of its swarm service (the database's
 * own pass makes it): until its service names the network and a task of it runs, the deploy waits
 * (it retries), and the database is woken to make the update.
 */
async function pinnedJoined(x: { shortName: string; pinned?: PinnedAttach }, d: AttachedDatabase, network: string): Promise<void> {
  if (!x.pinned) throw new Error(`database ${d.name} is pinned to a node, which needs a Docker Swarm`);
  const [service] = await x.pinned.swarm.listServices([`${Labels.instance}=${x.shortName}`, `${Labels.database}=${d.id}`, `${Labels.role}=${DatabaseRoles.database}`]);
  const joined = (service?.labels[APP_NETWORKS_LABEL] ?? "").split(",").includes(network);
  const running = service && joined ? (await x.pinned.swarm.listTasks(service.id)).some((t) => t.desiredState === "running" && t.state === "running") : false;
  if (running) return;
  x.pinned.wake(d.id);
  throw new Error(`database ${d.name} is ${joined ? "restarting on its node" : "joining the app's network on its node"}; the deploy goes on once it has`);
}
