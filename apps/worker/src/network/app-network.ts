import type { Runtime } from "@levelrail/docker";
import { networkLabels, networkName } from "@levelrail/spec/naming";
import { type SubnetPool, nextSubnet } from "./pool";

/**
 * The app's private network, created on demand with a subnet from the pool.
 * Returns its gateway: the address the mesh DNS listens on for the app.
 */
export async function ensureAppNetwork(runtime: Runtime, shortName: string, appId: string, pool: SubnetPool): Promise<{ name: string; gateway: string }> {
  const name = networkName(shortName, appId);
  const existing = await runtime.inspectNetwork(name);
  if (existing?.gateway) return { name, gateway: existing.gateway };
  const used = (await runtime.listNetworks([])).flatMap((n) => n.subnets);
  const next = nextSubnet(pool, used);
  if (!next) throw new Error(`the network pool ${pool.pool} is full: delete unused apps or set LEVELRAIL_NETWORK_POOL to a larger range`);
  // Another pass may have taken the name or the subnet meanwhile: the engine refuses, and the next pass retries.
  await runtime.createNetwork(name, networkLabels(shortName, appId), next.subnet, next.gateway);
  const created = await runtime.inspectNetwork(name);
  if (!created?.gateway) throw new Error(`network ${name} has no gateway`);
  return { name, gateway: created.gateway };
}
