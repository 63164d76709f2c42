import type { Runtime } from "@levelrail/docker";
import type { SwarmPort } from "@levelrail/docker/swarm";
import { OVERLAY_OVERHEAD, overlayMtu } from "@levelrail/docker/swarm/preflight";
import { networkLabels, networkName } from "@levelrail/spec/naming";
import { NODE_MTU_LABEL } from "@levelrail/spec/nodes";
import { NetworkTakenError, isAppNetwork } from "./app-network";
import { type SubnetPool, nextSubnet } from "./pool";

export { OVERLAY_OVERHEAD };

/** The MTU an app's overlay gets on these nodes: the smallest measured interface MTU (`levelrail.mtu`) less 50; null when none was measured (the engine's default). */
export function appOverlayMtu(nodes: readonly { labels: Record<string, string> }[]): number | null {
  return overlayMtu(nodes.map((n) => Number(n.labels[NODE_MTU_LABEL]) || null));
}

/**
 * On a swarm (CONTRACT §12): the app's own attachable overlay network, created on demand, with a
 * subnet from the installation's pool (none shared with any network the manager knows), its MTU
 * from the nodes' interfaces, and IPsec between nodes when `encrypted`. Apps never share one: an
 * app's tasks reach only their own app's services and databases. Returns its name and subnet.
 * Throws `NetworkTakenError` when a network without the app's labels holds its name.
 */
export async function ensureAppOverlay(
  runtime: Pick<Runtime, "inspectNetwork" | "listNetworks">,
  swarm: Pick<SwarmPort, "createOverlayNetwork" | "listNodes">,
  shortName: string,
  appId: string,
  pool: SubnetPool,
  opts: { encrypted?: boolean } = {},
): Promise<{ name: string; subnet: string; mtu: number | null }> {
  const name = networkName(shortName, appId);
  const existing = await runtime.inspectNetwork(name);
  if (existing && !isAppNetwork(existing, shortName, appId)) throw new NetworkTakenError(name);
  const mtu = appOverlayMtu(await swarm.listNodes());
  if (existing?.subnets[0]) return { name, subnet: existing.subnets[0], mtu };
  const used = (await runtime.listNetworks([])).flatMap((n) => n.subnets);
  const next = nextSubnet(pool, used);
  if (!next) throw new Error(`the network pool ${pool.pool} is full: delete unused apps or set LEVELRAIL_NETWORK_POOL to a larger range`);
  // Another pass may have taken the name meanwhile (false): the inspect below tells whose it is.
  await swarm.createOverlayNetwork({ name, labels: networkLabels(shortName, appId), subnet: next.subnet, gateway: next.gateway, encrypted: opts.encrypted === true, mtu });
  const created = await runtime.inspectNetwork(name);
  if (!created || !isAppNetwork(created, shortName, appId)) throw new NetworkTakenError(name);
  return { name, subnet: created.subnets[0] ?? next.subnet, mtu };
}
