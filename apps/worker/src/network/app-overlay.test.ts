import type { NetworkInfo } from "@levelrail/docker";
import { networkLabels, networkName } from "@levelrail/spec/naming";
import { describe, expect, it } from "vitest";
import { BridgeInUseError, ensureAppOverlay } from "./app-overlay";

// The app's network as a swarm needs it, when the installation ran on one engine before: its
// bridge (local to the manager) makes way for the overlay when nothing uses it, and otherwise the
// pass is refused naming the containers and what to do. Engines in memory: only these calls.

const SHORT = "lrt";
const APP = "app-1";
const NAME = networkName(SHORT, APP);
const POOL = { pool: "10.240.0.0/16", bits: 24 };

function engines(existing: NetworkInfo | null) {
  const nets = new Map<string, NetworkInfo>(existing ? [[existing.name, existing]] : []);
  const calls: string[] = [];
  const runtime = {
    inspectNetwork: async (name: string) => nets.get(name) ?? null,
    listNetworks: async () => [...nets.values()],
    removeNetwork: async (name: string) => {
      calls.push(`remove ${name}`);
      nets.delete(name);
    },
  };
  const swarm = {
    listNodes: async () => [],
    createOverlayNetwork: async (spec: { name: string; labels: Record<string, string>; subnet: string | null; gateway: string | null }) => {
      calls.push(`create overlay ${spec.name} ${spec.subnet}`);
      nets.set(spec.name, { id: "ov-1", name: spec.name, labels: spec.labels, subnets: [spec.subnet!], gateway: spec.gateway, containers: [], driver: "overlay" });
      return true;
    },
  };
  return { runtime, swarm, calls };
}

const bridge = (containers: string[]): NetworkInfo => ({ id: "br-1", name: NAME, labels: networkLabels(SHORT, APP), subnets: ["10.240.0.0/24"], gateway: "10.240.0.1", containers, driver: "bridge" });

describe("ensureAppOverlay after one engine", () => {
  it("replaces the app's unused bridge with its overlay", async () => {
    const e = engines(bridge([]));
    const made = await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, APP, POOL);
    expect(e.calls).toEqual([`remove ${NAME}`, `create overlay ${NAME} 10.240.0.0/24`]);
    expect(made.name).toBe(NAME);
  });

  it("refuses while containers of that time use the bridge, naming them and what to do; nothing is removed", async () => {
    const e = engines(bridge(["0123456789abcdef0123", "fedcba9876543210fedc"]));
    const err = await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, APP, POOL).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(BridgeInUseError);
    expect((err as Error).message).toBe(
      `app network ${NAME} is a bridge network from when this installation ran on one engine, and 2 containers 0123456789ab, fedcba987654 still use it: remove them (docker rm -f; the swarm release replaces the app's) and the next pass makes the app's overlay network in its place`,
    );
    expect(e.calls).toEqual([]);
  });

  it("keeps the app's overlay as it is", async () => {
    const e = engines({ ...bridge(["c1"]), driver: "overlay" });
    expect(await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, APP, POOL)).toMatchObject({ name: NAME, subnet: "10.240.0.0/24" });
    expect(e.calls).toEqual([]);
  });
});

describe("ensureAppOverlay while the swarm has not allocated a new overlay's subnet yet", () => {
  // A swarm manager lists an overlay with no subnet until its allocator ran (after the create returned).
  function unallocated() {
    const nets = new Map<string, NetworkInfo>();
    const created: string[] = [];
    const runtime = {
      inspectNetwork: async (name: string) => nets.get(name) ?? null,
      listNetworks: async () => [...nets.values()],
      removeNetwork: async () => {},
    };
    const swarm = {
      listNodes: async () => [],
      createOverlayNetwork: async (spec: { name: string; labels: Record<string, string>; subnet: string | null }) => {
        if (nets.has(spec.name)) return false;
        created.push(`${spec.name} ${spec.subnet}`);
        nets.set(spec.name, { id: `ov-${spec.name}`, name: spec.name, labels: spec.labels, subnets: [], gateway: null, containers: [], driver: "overlay" });
        return true;
      },
    };
    return { runtime, swarm, created, nets };
  }

  it("the next app's overlay gets another subnet, and the first app's is the one it asked for", async () => {
    const e = unallocated();
    const a = await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, "app-a", POOL);
    const b = await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, "app-b", POOL);
    expect([a.subnet, b.subnet]).toEqual(["10.240.0.0/24", "10.240.1.0/24"]);
    expect(await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, "app-a", POOL)).toMatchObject({ subnet: "10.240.0.0/24" });
    expect(e.created).toEqual([`${networkName(SHORT, "app-a")} 10.240.0.0/24`, `${networkName(SHORT, "app-b")} 10.240.1.0/24`]);
  });

  it("a subnet is free again once its overlay is gone", async () => {
    const e = unallocated();
    const a = await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, "app-c", POOL);
    e.nets.delete(a.name);
    expect((await ensureAppOverlay(e.runtime, e.swarm as never, SHORT, "app-d", POOL)).subnet).toBe(a.subnet);
  });
});
