import { describe, expect, it } from "vitest";
import { type SwarmFacts, swarmCheck } from "./swarm";

const names = { holder: "lr-edge", caddy: "lr-edge-caddy" };
const node = (over: Partial<SwarmFacts["nodes"][number]> = {}): SwarmFacts["nodes"][number] => ({
  id: "n1", hostname: "vm1", name: "vm1", address: "10.0.0.1", role: "manager", state: "ready", availability: "active", ...over,
});
const manager = (over: Partial<SwarmFacts> = {}): SwarmFacts => ({ kind: "swarm-manager", nodes: [node(), node({ id: "n2", hostname: "vm2", address: "10.0.0.2", role: "worker" })], edge: { holder: true, caddy: true }, ...over });

describe("the swarm check", () => {
  it("one engine: ok; the engine down: not checked", () => {
    expect(swarmCheck({ kind: "single", nodes: [], edge: { holder: false, caddy: false } }, names)).toMatchObject({ status: "ok", message: "one engine (not in a swarm)" });
    expect(swarmCheck(null, names)).toMatchObject({ status: "warn", message: "not checked: the Docker engine does not answer" });
  });

  it("a manager with every node ready and the edge running: ok, counting nodes and naming drained ones", () => {
    expect(swarmCheck(manager(), names)).toMatchObject({ status: "ok", message: "swarm manager of 2 nodes (1 manager), every one ready; the edge ingress runs here" });
    const drained = swarmCheck(manager({ nodes: [node(), node({ id: "n2", hostname: "vm2", address: "10.0.0.2", role: "worker", availability: "drain" })] }), names);
    expect(drained.message).toContain("vm2 (10.0.0.2) takes no new tasks (drain)");
  });

  it("overlays the kernel cannot encrypt: warn that tenant traffic crosses between the nodes in clear, saying why; encrypted ones are said", () => {
    const clear = { supported: false, detail: "the kernel has no IPsec ESP with rfc4106(gcm(aes))" };
    expect(swarmCheck(manager({ ipsec: clear }), names)).toMatchObject({
      status: "warn",
      message: expect.stringContaining("app and database overlays are not encrypted between the nodes, so tenant traffic crosses the network in clear: the kernel has no IPsec ESP with rfc4106(gcm(aes))"),
    });
    expect(swarmCheck(manager({ ipsec: { supported: null, detail: "could not tell" } }), names).status).toBe("warn");
    // one node: nothing crosses a wire yet, said all the same
    const alone = swarmCheck(manager({ nodes: [node()], ipsec: clear }), names);
    expect(alone).toMatchObject({ status: "ok", message: expect.stringContaining("once another node joins, app and database overlays are not encrypted") });
    expect(swarmCheck(manager({ ipsec: { supported: true, detail: "yes" } }), names)).toMatchObject({ status: "ok", message: expect.stringContaining("overlays between nodes are encrypted (IPsec)") });
  });

  it("databases pinned to a drained or down node: warn, naming them, the node and what brings them back", () => {
    const pinned = [
      { database: "shop/prod/orders", nodeId: "n2" },
      { database: "shop/prod/users", nodeId: "n2" },
      { database: "blog/prod/posts", nodeId: "n3" },
    ];
    const nodes = [node(), node({ id: "n2", hostname: "vm2", address: "10.0.0.2", role: "worker", availability: "drain" }), node({ id: "n3", hostname: "vm3", address: "10.0.0.3", role: "worker" })];
    expect(swarmCheck(manager({ nodes }), names, pinned)).toMatchObject({
      status: "warn",
      message: "shop/prod/orders, shop/prod/users are stopped: pinned to vm2 (10.0.0.2), which is drained, with their data; activate it on the Nodes page",
    });
    const down = swarmCheck(manager({ nodes: [node(), node({ id: "n3", hostname: "vm3", address: "10.0.0.3", role: "worker", state: "down" })] }), names, pinned);
    expect(down.message).toContain("blog/prod/posts is stopped: pinned to vm3 (10.0.0.3), which is down, with its data; start its engine");
    // Pinned to ready, active nodes (or the database not answering): nothing to say.
    expect(swarmCheck(manager({ nodes: [node(), nodes[2]!] }), names, pinned)).toMatchObject({ status: "ok" });
    expect(swarmCheck(manager({ nodes }), names, null).message).toContain("takes no new tasks (drain)");
  });

  it("a worker: fail, saying to run the panel on a manager", () => {
    expect(swarmCheck({ kind: "swarm-worker", nodes: [], edge: { holder: false, caddy: false } }, names)).toMatchObject({ status: "fail", message: expect.stringContaining("run it on a manager") });
  });

  it("the edge missing, a node down: warn with what to do", () => {
    const r = swarmCheck(manager({ edge: { holder: true, caddy: false }, nodes: [node(), node({ id: "n2", hostname: "vm2", address: "10.0.0.2", role: "worker", state: "down" })] }), names);
    expect(r.status).toBe("warn");
    expect(r.message).toBe(
      "the edge ingress does not run here (lr-edge-caddy not running): releases run as containers on this engine only; `npm start` makes it; vm2 (10.0.0.2) is down: its tasks run again on the other nodes; start its engine, or remove it (`docker node rm <node>`)",
    );
  });

  it("the node agents: none on a swarm of several nodes is a warn saying how to run them; a node without one is named; all running: ok", () => {
    const none = swarmCheck(manager({ agents: null }), names);
    expect(none).toMatchObject({ status: "warn", message: expect.stringContaining("set LEVELRAIL_SWARM_REGISTRY") });
    const missing = swarmCheck(manager({ agents: { self: "n1", runningOn: [] } }), names);
    expect(missing).toMatchObject({ status: "warn", message: expect.stringContaining("vm2 (10.0.0.2) runs no node agent") });
    const all = swarmCheck(manager({ agents: { self: "n1", runningOn: ["n2"] } }), names);
    expect(all).toMatchObject({ status: "ok", message: expect.stringContaining("every other node runs its own edge") });
    const silent = swarmCheck(manager({ agents: { self: "n1", runningOn: ["n2"], silent: ["n2"] } }), names);
    expect(silent).toMatchObject({ status: "warn", message: expect.stringContaining("the node agent on vm2 (10.0.0.2) has not read the edge feed for 15 s") });
    // One node: nothing to run elsewhere.
    expect(swarmCheck(manager({ nodes: [node()], agents: null }), names)).toMatchObject({ status: "ok" });
  });
});
