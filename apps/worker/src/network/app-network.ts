import type { Runtime } from "@levelrail/docker";
import { carriesLabels, networkLabels, networkName } from "@levelrail/spec/naming";
import { type SubnetPool, nextSubnet } from "./pool";

/** The app network's name is held by a network that is not this app's (its labels say so): nothing joins it. */
export class NetworkTakenError extends Error {
  constructor(readonly network: string) {
    super(`network ${network} exists but is not this app's (its labels do not say so); remove it and deploy again`);
    this.name = "NetworkTakenError";
  }
}

/** Whether an inspected network is this app's own: its labels, never its name, say so. */
export function isAppNetwork(net: { labels: Record<string, string> }, shortName: string, appId: string): boolean {
  return carriesLabels(net.labels, networkLabels(shortName, appId));
}

/**
 * The app's private network, created on demand with a subnet from the pool.
 * Returns its gateway: the address the mesh DNS listens on for the app.
 * Throws `NetworkTakenError` when a network without the app's labels holds its name.
 */
export async function ensureAppNetwork(runtime: Pick<Runtime, "inspectNetwork" | "listNetworks" | "createNetwork">, shortName: string, appId: string, pool: SubnetPool): Promise<{ name: string; gateway: string }> {
  const name = networkName(shortName, appId);
  const existing = await runtime.inspectNetwork(name);
  if (existing && !isAppNetwork(existing, shortName, appId)) throw new NetworkTakenError(name);
  if (existing?.gateway) return { name, gateway: existing.gateway };
  const used = (await runtime.listNetworks([])).flatMap((n) => n.subnets);
  const next = nextSubnet(pool, used);
  if (!next) throw new Error(`the network pool ${pool.pool} is full: delete unused apps or set LEVELRAIL_NETWORK_POOL to a larger range`);
  // Another pass may have taken the name or the subnet meanwhile: the engine refuses, and the next pass retries.
  await runtime.createNetwork(name, networkLabels(shortName, appId), next.subnet, next.gateway);
  const created = await runtime.inspectNetwork(name);
  if (created && !isAppNetwork(created, shortName, appId)) throw new NetworkTakenError(name);
  if (!created?.gateway) throw new Error(`network ${name} has no gateway`);
  return { name, gateway: created.gateway };
}
