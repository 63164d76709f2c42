import { PassThrough } from "node:stream";
import type Docker from "dockerode";
import { Labels } from "@levelrail/spec/naming";
import { NODE_MTU_LABEL } from "@levelrail/spec/nodes";
import { swarmCalls } from "./engine";
import { statusOf } from "../engine-errors";
import { type EngineInfo, type EngineNode, engineKind, nodeView } from "./nodes";
import { type JoinCandidate, type JoinVerdict, type PortCheck, type PortProber, type ProbeOutcome, type SwarmMember, runJoinPreflight } from "./preflight";
import { MTU_OPTION } from "./spec";
import { LISTENER, SENDER } from "./probe-programs";

// Adding a node to the installation's swarm through the engines' own APIs: the preflight's port
// probes run as short-lived host-network containers (a listener on the receiving node's engine, a
// sender on the sending node's), the MTU is read the same way, and only a candidate that passes
// every check is joined. Argument arrays only: the probe programs are constants, their inputs argv.

/** argv: address. Prints the MTU of the interface that holds `address`, or `none`. */
const MTU = `
const [address] = process.argv.slice(1);
const fs = require("node:fs"), os = require("node:os");
const iface = Object.entries(os.networkInterfaces()).find(([, as]) => (as || []).some((a) => a.address === address));
console.log(iface ? fs.readFileSync("/sys/class/net/" + iface[0] + "/mtu", "utf8").trim() : "none");`;

/** One node's engine as the join reaches it. */
export interface JoinEngine {
  name: string;
  /** Its address on the network the nodes share (where the swarm's ports listen). */
  address: string;
  docker: Docker;
}

/** Where the probe programs run: an image with Node.js in it (the data plane's) and the path of its `node`. */
export interface ProbeImage {
  image: string;
  node: string;
  /** The installation's short name: probe containers carry its labels, so a crash's leftovers are recognisable. */
  shortName: string;
}

/** One host-network container running `code` with `args`; resolves to its exit code and output. */
async function runProbe(engine: JoinEngine, p: ProbeImage, code: string, args: string[], onLine?: (line: string) => void) {
  const container = await engine.docker.createContainer({
    Image: p.image,
    Entrypoint: [p.node, "-e", code],
    Cmd: args,
    Labels: { [Labels.managed]: "true", [Labels.instance]: p.shortName, [Labels.role]: "join-probe" },
    HostConfig: { NetworkMode: "host", AutoRemove: false },
  });
  const remove = () => container.remove({ force: true }).catch((err: unknown) => (statusOf(err) === 404 ? undefined : Promise.reject(err)));
  try {
    const lines: string[] = [];
    await container.start();
    // Follow its output as it comes: a listener says `listening` before the sender may start.
    const stream = (await container.logs({ follow: true, stdout: true, stderr: true })) as unknown as NodeJS.ReadableStream;
    const text = new PassThrough();
    engine.docker.modem.demuxStream(stream, text, text);
    let buffered = "";
    text.on("data", (b: Buffer) => {
      buffered += b.toString("utf8");
      let at;
      while ((at = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, at).trim();
        buffered = buffered.slice(at + 1);
        if (line) {
          lines.push(line);
          onLine?.(line);
        }
      }
    });
    const ended = new Promise((resolve) => stream.once("end", resolve));
    const exit = (await container.wait()) as { StatusCode?: number };
    // Its last lines may still be on their way when the wait answers.
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2_000))]);
    return { exitCode: exit.StatusCode ?? 1, lines, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}

/**
 * A `PortProber` over the engines the join can reach: a listener on the receiver (when the port is
 * free there), a sender on the sender. A check between nodes whose engine it cannot reach, or to a
 * UDP port the receiving engine holds itself (a member's gossip and VXLAN), is `unverified`, saying why.
 */
export function engineProber(engines: readonly JoinEngine[], p: ProbeImage, timeoutMs = 3_000): PortProber {
  const at = (address: string) => engines.find((e) => e.address === address);
  return {
    async probe(c: PortCheck): Promise<ProbeOutcome> {
      const from = at(c.from.address);
      const to = at(c.to.address);
      if (!from || !to) return { status: "unverified", detail: `no engine API to ${!from ? c.from.name : c.to.name} here` };
      let ready!: (line: string) => void;
      const firstLine = new Promise<string>((resolve) => (ready = resolve));
      const listening = runProbe(to, p, LISTENER, [c.proto, String(c.port), String(timeoutMs + 2_000)], (l) => ready(l));
      const first = await Promise.race([firstLine, listening.then((r) => r.lines[0] ?? `exit ${r.exitCode}`)]);
      const send = () => runProbe(from, p, SENDER, [c.proto, c.to.address, String(c.port), String(timeoutMs)]);
      if (first !== "listening") {
        await (await listening).remove();
        if (first !== "busy") return { status: "fail", detail: `could not listen on ${c.to.name}: ${first}` };
        // The engine holds the port: a TCP connect still proves it; a datagram to it proves nothing here.
        if (c.proto === "udp") return { status: "unverified", detail: `${c.to.name}'s engine holds UDP ${c.port} itself; no listener could be placed` };
        const sent = await send();
        await sent.remove();
        return sent.exitCode === 0 ? { status: "pass" } : { status: "fail", detail: sent.lines.join(" ") || `exit ${sent.exitCode}` };
      }
      const sent = await send();
      const got = await listening;
      await Promise.all([sent.remove(), got.remove()]);
      if (got.exitCode === 0) return { status: "pass" };
      if (sent.exitCode !== 0) return { status: "fail", detail: sent.lines.join(" ") || `sender exit ${sent.exitCode}` };
      return { status: "fail", detail: `nothing arrived within ${timeoutMs + 2_000} ms` };
    },
  };
}

/** The MTU of the interface that holds `engine.address`, read on that engine's host; null when none does. */
export async function interfaceMtu(engine: JoinEngine, p: ProbeImage): Promise<number | null> {
  const r = await runProbe(engine, p, MTU, [engine.address]);
  await r.remove();
  const n = Number(r.lines[0]);
  return Number.isInteger(n) && n > 0 ? n : null;
}

/** The smallest MTU the installation's overlay networks were made with, or null when there is none yet. */
async function networksMtu(manager: Docker, shortName: string): Promise<number | null> {
  const list = (await manager.listNetworks({ filters: JSON.stringify({ driver: ["overlay"], label: [`${Labels.instance}=${shortName}`] }) })) as { Options?: Record<string, string> | null }[];
  const mtus = list.map((n) => Number(n.Options?.[MTU_OPTION])).filter((m) => Number.isInteger(m) && m > 0);
  return mtus.length ? Math.min(...mtus) : null;
}

export type JoinResult = { joined: true; nodeId: string; verdict: JoinVerdict } | { joined: false; verdict: JoinVerdict };

/**
 * Joins `candidate` to the swarm `manager` leads, after the preflight: every port check between the
 * candidate and the members whose engines are given, and the MTU (the candidate's interface must
 * carry the overlay networks' MTU plus VXLAN's 50 bytes). A failed check joins nothing; the verdict
 * names it and its fix. The join token goes from one engine to the other and is never returned.
 */
export async function joinNode(o: {
  manager: JoinEngine;
  candidate: JoinEngine;
  role: "worker" | "manager";
  probe: ProbeImage;
  /** Other members' engines, when reachable (their checks are unverified without). */
  members?: readonly JoinEngine[];
  timeoutMs?: number;
  log?: (line: string) => void;
}): Promise<JoinResult> {
  const log = o.log ?? (() => {});
  const managerInfo = (await o.manager.docker.info()) as EngineInfo;
  if (engineKind(managerInfo) !== "swarm-manager") throw new Error(`${o.manager.name}'s engine is not a swarm manager: run \`docker swarm init\` there first`);
  const candidateInfo = (await o.candidate.docker.info()) as EngineInfo;
  if (candidateInfo.Swarm?.LocalNodeState && candidateInfo.Swarm.LocalNodeState !== "inactive") {
    throw new Error(`${o.candidate.name}'s engine is already in a swarm (${candidateInfo.Swarm.LocalNodeState}): leave it first (\`docker swarm leave\`)`);
  }
  const engines = [o.manager, o.candidate, ...(o.members ?? [])];
  const nodes = ((await o.manager.docker.listNodes()) as EngineNode[]).map(nodeView).filter((n) => n.state !== "down");
  const members: SwarmMember[] = [];
  for (const n of nodes) {
    const engine = engines.find((e) => e.address === n.address);
    members.push({ name: n.name, address: n.address, role: n.role, mtu: engine ? await interfaceMtu(engine, o.probe) : null });
  }
  const candidate: JoinCandidate = { name: o.candidate.name, address: o.candidate.address, mtu: await interfaceMtu(o.candidate, o.probe) };
  log(`checking ${candidate.name} (${candidate.address}, MTU ${candidate.mtu ?? "unknown"}) against ${members.length} node(s)`);
  const verdict = await runJoinPreflight(candidate, members, engineProber(engines, o.probe, o.timeoutMs), await networksMtu(o.manager.docker, o.probe.shortName));
  if (!verdict.ok) return { joined: false, verdict };
  const tokens = ((await o.manager.docker.swarmInspect()) as { JoinTokens: { Worker: string; Manager: string } }).JoinTokens;
  const managerAddr = nodes.find((n) => n.leader)?.address ?? o.manager.address;
  await o.candidate.docker.swarmJoin({
    ListenAddr: `${o.candidate.address}:2377`,
    AdvertiseAddr: `${o.candidate.address}:2377`,
    RemoteAddrs: [`${managerAddr}:2377`],
    JoinToken: o.role === "manager" ? tokens.Manager : tokens.Worker,
  });
  const nodeId = ((await o.candidate.docker.info()) as EngineInfo).Swarm?.NodeID ?? "";
  log(`${candidate.name} joined as a ${o.role} (node ${nodeId})`);
  // Each measured MTU as the node's own label: app overlays are made at the smallest, less 50.
  const swarm = swarmCalls(o.manager.docker);
  const measured = [...members.map((m) => ({ address: m.address, mtu: m.mtu })), { address: candidate.address, mtu: candidate.mtu }];
  for (const n of await swarm.listNodes()) {
    const mtu = n.id === nodeId ? candidate.mtu : measured.find((m) => m.address === n.address)?.mtu;
    if (mtu && n.labels[NODE_MTU_LABEL] !== String(mtu)) await swarm.updateNode(n.id, { labels: { ...n.labels, [NODE_MTU_LABEL]: String(mtu) } });
  }
  return { joined: true, nodeId, verdict };
}
