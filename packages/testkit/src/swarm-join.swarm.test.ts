import { type JoinEngine, type ProbeImage, joinNode } from "@levelrail/docker/swarm/join";
import { Labels, networkLabels } from "@levelrail/spec/naming";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNodeImage } from "./node-image";
import { type SwarmHarness, type SwarmNode, startSwarm } from "./swarm";
import { waitFor } from "./wait";

// Adding a node through the engines' APIs (issue 26: "a node joins only after a check of what the
// overlay needs"): on real engines in network namespaces, a candidate whose MTU cannot carry the
// overlay networks, or whose firewall drops gossip, is refused with the check that failed and its
// fix, and joins nothing; once fixed, it joins and is ready. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
let h: SwarmHarness;
let probe: ProbeImage;

const engine = (n: SwarmNode): JoinEngine => ({ name: `node${n.index}`, address: n.address, docker: n.docker });
const node = (i: number) => h.nodes[i - 1] as SwarmNode;
const swarmState = async (n: SwarmNode) => ((await n.docker.info()) as { Swarm?: { LocalNodeState?: string } }).Swarm?.LocalNodeState;
const probesLeft = async () => {
  let n = 0;
  for (const x of h.nodes) n += (await x.docker.listContainers({ all: true, filters: JSON.stringify({ label: [`${Labels.role}=join-probe`] }) })).length;
  return n;
};

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, join: false, heartbeatSeconds: 1 });
  const built = await Promise.all(h.nodes.map((n) => ensureNodeImage(n.docker)));
  probe = { ...built[0]!, shortName: short };
  // An app network made at 1450, as the product makes them: a newcomer must carry it.
  await h.manager.docker.createNetwork({ Name: `${short}-joinnet`, Driver: "overlay", Attachable: true, Labels: networkLabels(short, "joinapp"), Options: { "com.docker.network.driver.mtu": "1450" } });
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

describe("joining a node through the engines' APIs", () => {
  it("refuses a candidate whose MTU cannot carry the overlay networks, or that drops gossip, naming each failed check and its fix; nothing joins", async () => {
    await node(2).exec(["ip", "link", "set", "eth0", "mtu", "1400"]);
    await node(2).exec(["iptables", "-A", "INPUT", "-p", "tcp", "--dport", "7946", "-j", "REJECT", "--reject-with", "tcp-reset"]);
    try {
      const r = await joinNode({ manager: engine(h.manager), candidate: engine(node(2)), role: "worker", probe });
      expect(r.joined).toBe(false);
      const failed = Object.fromEntries(r.verdict.failed.map((f) => [f.id, f]));
      expect(failed.mtu?.message).toMatch(/MTU 1400 cannot carry the overlay networks' MTU 1450 \(\+50\): raise it to at least 1500/);
      expect(failed[`port 7946/tcp ${h.manager.address}→${node(2).address}`]?.fix).toBe(`allow TCP 7946 from ${h.manager.address} to ${node(2).address} (node gossip) in node2's firewall and any between them`);
      // Everything else it could prove passed: the manager's cluster port, VXLAN towards the candidate.
      expect(r.verdict.passed).toEqual(expect.arrayContaining([`port 2377/tcp ${node(2).address}→${h.manager.address}`, `port 4789/udp ${h.manager.address}→${node(2).address}`]));
      expect(await swarmState(node(2))).toBe("inactive");
      expect((await h.manager.docker.listNodes()).length).toBe(1);
    } finally {
      await node(2).exec(["iptables", "-D", "INPUT", "-p", "tcp", "--dport", "7946", "-j", "REJECT", "--reject-with", "tcp-reset"]);
      await node(2).exec(["ip", "link", "set", "eth0", "mtu", "1500"]);
    }
    expect(await probesLeft()).toBe(0);
  });

  it("joins a candidate that passes every check; the manager sees it ready", async () => {
    const lines: string[] = [];
    const r = await joinNode({ manager: engine(h.manager), candidate: engine(node(2)), role: "worker", probe, log: (l) => lines.push(l) });
    expect(r.verdict.failed).toEqual([]);
    expect(r.joined).toBe(true);
    // A datagram to a port the manager's engine holds proves nothing: listed, not failed.
    expect(r.verdict.unverified.map((u) => u.id)).toEqual(expect.arrayContaining([`port 4789/udp ${node(2).address}→${h.manager.address}`]));
    const nodeId = r.joined ? r.nodeId : "";
    await waitFor("the new node ready", async () => {
      const list = (await h.manager.docker.listNodes()) as { ID: string; Status?: { State?: string } }[];
      return list.find((n) => n.ID === nodeId)?.Status?.State === "ready" ? true : undefined;
    }, { timeoutMs: 60_000, intervalMs: 250 });
    expect(lines.join("\n")).toContain("joined as a worker");
    // Each node's measured MTU is its label now: the app overlays' MTU comes from them.
    const labels = ((await h.manager.docker.listNodes()) as { Spec?: { Labels?: Record<string, string> } }[]).map((n) => n.Spec?.Labels?.["levelrail.mtu"]);
    expect(labels).toEqual(["1500", "1500"]);
    expect(lines.join("\n")).not.toMatch(/SWMTKN/); // the join token is never logged
    expect(await probesLeft()).toBe(0);
  });

  it("refuses an engine already in a swarm, before probing anything", async () => {
    await expect(joinNode({ manager: engine(h.manager), candidate: engine(node(2)), role: "worker", probe })).rejects.toThrow(/already in a swarm/);
  });
});
