import type Docker from "dockerode";
import type { ManagedContainer, Runtime } from "@levelrail/docker";
import { Labels, type DatabaseRole, DatabaseRoles, carriesLabels, databaseContainerName, databaseFilter, databaseLabels, networkName } from "@levelrail/spec/naming";
import { DEFAULT_RESOURCES } from "@levelrail/spec/service";
import { hostLimits } from "../../containers/limits";
import type { DatabaseCredentials, DatabaseEngine } from "./ports";
import type { DesiredDatabase } from "./store";

/** What building and running a database's containers needs. */
export interface ServerDeps {
  shortName: string;
  runtime: Runtime;
  engine: (id: DesiredDatabase["engine"]) => DatabaseEngine;
}

const MiB = 1024 * 1024;

/**
 * The create options of one container of a database: the server itself, or a restore's or a
 * verification's one-off, on `volume`. No network at first (`none`): the server joins its attached
 * apps' networks afterwards, the one-offs never do.
 */
export function databaseContainerOptions(
  x: ServerDeps,
  d: Pick<DesiredDatabase, "id" | "environmentId" | "engine" | "image">,
  o: { name: string; role: DatabaseRole; volume: string; credentials: DatabaseCredentials },
): Docker.ContainerCreateOptions {
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
export async function ensureVolume(x: ServerDeps, d: Pick<DesiredDatabase, "id" | "environmentId">, name: string): Promise<void> {
  const labels = databaseLabels(x.shortName, { databaseId: d.id, environmentId: d.environmentId });
  const found = await x.runtime.inspectVolume(name);
  if (found) {
    if (!carriesLabels(found.labels, labels)) throw new Error(`volume ${name} exists but is not this database's; remove or rename it`);
    return;
  }
  await x.runtime.createVolume(name, labels);
}

/** The database's containers of one role (or all), checked by their labels. */
export async function containersOf(x: ServerDeps, databaseId: string, role?: DatabaseRole): Promise<ManagedContainer[]> {
  const all = await x.runtime.listContainers(databaseFilter(x.shortName, databaseId));
  return all.filter((c) => c.labels[Labels.database] === databaseId && (role === undefined || c.labels[Labels.role] === role));
}

/** Stops (cleanly: PostgreSQL's fast shutdown) and removes a container. */
export async function retire(x: ServerDeps, c: { id: string }, timeoutSeconds = 30): Promise<void> {
  await x.runtime.stopContainer(c.id, timeoutSeconds);
  await x.runtime.removeContainer(c.id);
}

/** The name the server container of the database has now (its image and volume in the hash). */
export const serverName = (x: ServerDeps, d: Pick<DesiredDatabase, "id" | "name" | "image" | "volume">) =>
  databaseContainerName(x.shortName, d.name, { databaseId: d.id, image: d.image, volume: d.volume });

/**
 * Joins the server to the networks of the apps that attach it (with the database's name as its
 * alias there) and leaves the app networks of those that no longer do. An app whose network does
 * not exist yet is skipped: its first deploy connects the database (see `attachDatabase`).
 */
export async function convergeNetworks(x: ServerDeps, d: Pick<DesiredDatabase, "name" | "attachedApps">, c: ManagedContainer): Promise<void> {
  const wanted = new Set(d.attachedApps.map((appId) => networkName(x.shortName, appId)));
  const prefix = `${x.shortName}-app-`;
  for (const net of Object.keys(c.addresses)) {
    if (net.startsWith(prefix) && !wanted.has(net)) await x.runtime.disconnectNetwork(net, c.id);
  }
  for (const net of wanted) {
    if (net in c.addresses) continue;
    if (!(await x.runtime.inspectNetwork(net))) continue;
    await attachDatabase(x, c, net, d.name);
  }
}

/** Connects a running server to one app network under the database's name (leaving `none` first). */
export async function attachDatabase(x: Pick<ServerDeps, "runtime">, c: ManagedContainer, network: string, alias: string): Promise<void> {
  if (network in c.addresses) return;
  // Made on `none`, which admits no other network beside it; once it has left, this is refused (and fine).
  await x.runtime.disconnectNetwork("none", c.id).catch(() => {});
  await x.runtime.connectNetwork(network, c.id, [alias]);
}

/** One database a service attaches, as connecting it needs. */
export type AttachedDatabase = Pick<DesiredDatabase, "id" | "name" | "image" | "volume">;

/**
 * The application controller's `DatabaseAttacher`: joins each database the service attaches to the
 * service's app network; rejects (the deploy retries) while one has no running server.
 */
export function databaseAttacher(x: ServerDeps, attachedTo: (serviceId: string) => Promise<{ appId: string; databases: AttachedDatabase[] } | null>) {
  return {
    async attach(serviceId: string): Promise<void> {
      const found = await attachedTo(serviceId);
      if (!found) return;
      const network = networkName(x.shortName, found.appId);
      for (const d of found.databases) {
        const want = serverName(x, d);
        const server = (await containersOf(x, d.id, DatabaseRoles.database)).find((c) => c.name === want && c.state === "running");
        if (!server) throw new Error(`database ${d.name} is not running yet; the deploy goes on once it is`);
        await attachDatabase(x, server, network, d.name);
      }
    },
  };
}
