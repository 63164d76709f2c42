import type { Runtime } from "@levelrail/docker";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { OVERLAY_OVERHEAD, overlayMtu } from "@levelrail/docker/swarm/preflight";
import { networkLabels, networkName } from "@levelrail/spec/naming";
import { NODE_MTU_LABEL } from "@levelrail/spec/nodes";
import { NetworkTakenError, isAppNetwork } from "./app-network";
import { type SubnetPool, nextSubnet } from "./pool";

export { OVERLAY_OVERHEAD };

/**
 * Overlays this process created, by name, with the subnet it asked for, until the engine's network
 * list shows that subnet: a swarm allocates an overlay's subnet after its create returns, and until
 * then the list shows the network with none, so the next app's overlay would get the same one (a
 * swarm does not refuse overlapping overlays as a bridge's engine does).
 */
const requested = new Map<string, string>();

/** Every subnet in use: the listed ones, and those asked for that the list does not show yet. */
function subnetsInUse(listed: readonly { name: string; subnets: string[] }[]): string[] {
  const byName = new Map(listed.map((n) => [n.name, n]));
  for (const [name] of requested) {
    const n = byName.get(name);
    if (!n || n.subnets.length > 0) requested.delete(name); // gone, or allocated: the list has it
  }
  return [...listed.flatMap((n) => n.subnets), ...requested.values()];
}

/** The MTU an app's overlay gets on these nodes: the smallest measured interface MTU (`levelrail.mtu`) less 50; null when none was measured (the engine's default). */
export function appOverlayMtu(nodes: readonly { labels: Record<string, string> }[]): number | null {
  return overlayMtu(nodes.map((n) => Number(n.labels[NODE_MTU_LABEL]) || null));
}

/**
 * The app's network is still the bridge it had on one engine, and containers of that time use it:
 * the swarm's overlay needs its name. Says which containers, and what to do.
 */
export class BridgeInUseError extends Error {
  constructor(name: string, driver: string, containers: readonly string[]) {
    const ids = containers.map((c) => c.slice(0, 12));
    super(
      `app network ${name} is a ${driver} network from when this installation ran on one engine, and ${ids.length === 1 ? "container" : `${ids.length} containers`} ${ids.join(", ")} still use it: ` +
        `remove them (docker rm -f; the swarm release replaces the app's) and the next pass makes the app's overlay network in its place`,
    );
    this.name = "BridgeInUseError";
  }
}

/**
 * On a swarm (docs/operating/nodes-and-swarm.md): the app's own attachable overlay network, created on demand, with a
 * subnet from the installation's pool (none shared with any network the manager knows), its MTU
 * from the nodes' interfaces, and IPsec between nodes when `encrypted`. Apps never share one: an
 * app's tasks reach only their own app's services and databases. Returns its name and subnet.
 * Throws `NetworkTakenError` when a network without the app's labels holds its name.
 */
export async function ensureAppOverlay(
  runtime: Pick<Runtime, "inspectNetwork" | "listNetworks" | "removeNetwork">,
  swarm: Pick<SwarmPort, "createOverlayNetwork" | "listNodes">,
  shortName: string,
  appId: string,
  pool: SubnetPool,
  opts: { encrypted?: boolean } = {},
): Promise<{ name: string; subnet: string; mtu: number | null }> {
  const name = networkName(shortName, appId);
  let existing = await runtime.inspectNetwork(name);
  if (existing && !isAppNetwork(existing, shortName, appId)) throw new NetworkTakenError(name);
  if (existing && existing.driver !== undefined && existing.driver !== "overlay") {
    // The app's network from when this installation ran on one engine: a bridge, local to the
    // manager, which no task on another node can join. Unused, it makes way for the overlay.
    if (existing.containers.length > 0) throw new BridgeInUseError(name, existing.driver, existing.containers);
    await runtime.removeNetwork(name);
    existing = null;
  }
  const mtu = appOverlayMtu(await swarm.listNodes());
  if (existing?.subnets[0]) return { name, subnet: existing.subnets[0], mtu };
  const pending = existing ? requested.get(name) : undefined;
  if (pending) return { name, subnet: pending, mtu }; // ours, its subnet not allocated yet
  const used = subnetsInUse(await runtime.listNetworks([]));
  const next = nextSubnet(pool, used);
  if (!next) throw new Error(`the network pool ${pool.pool} is full: delete unused apps or set LEVELRAIL_NETWORK_POOL to a larger range`);
  // Another pass may have taken the name meanwhile (false): the inspect below tells whose it is.
  if (await swarm.createOverlayNetwork({ name, labels: networkLabels(shortName, appId), subnet: next.subnet, gateway: next.gateway, encrypted: opts.encrypted === true, mtu })) requested.set(name, next.subnet);
  const created = await runtime.inspectNetwork(name);
  if (!created || !isAppNetwork(created, shortName, appId)) throw new NetworkTakenError(name);
  return { name, subnet: created.subnets[0] ?? next.subnet, mtu };
}
