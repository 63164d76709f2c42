// `levelrail node join`: adds a host's Docker engine to the installation's swarm, after the preflight
// (`@levelrail/docker/swarm/join`): the ports the overlay needs, both ways, and the MTU. The probes
// run in the data plane's image (it holds Node.js), copied to the candidate's engine when missing.
import { isIP } from "node:net";
import { parseArgs } from "node:util";
import Docker from "dockerode";
import { parseDockerHost } from "@levelrail/docker/host";
import { type JoinEngine, joinNode } from "@levelrail/docker/swarm/join";

const USAGE = "levelrail node join --engine DOCKER_HOST --address IP [--name NAME] [--role worker|manager]";

const engineAt = (host: string) => new Docker({ ...parseDockerHost(host), timeout: 60_000 });

/** The data plane's image on `docker` (the newest `levelrail/mesh-dns`) and the `node` its entrypoint runs. */
async function dataPlaneImage(docker: Docker): Promise<{ image: string; node: string; id: string }> {
  const images = (await docker.listImages({ filters: JSON.stringify({ reference: ["levelrail/mesh-dns"] }) })).sort((a, b) => b.Created - a.Created);
  const ref = images[0]?.RepoTags?.find((t) => t.startsWith("levelrail/mesh-dns:"));
  if (!images[0] || !ref) throw new Error("the data plane's image (levelrail/mesh-dns) is not on this engine: run `npm start` or `levelrail install` here first");
  const entry = ((await docker.getImage(ref).inspect()) as { Config?: { Entrypoint?: string[] | null } }).Config?.Entrypoint?.[0];
  if (!entry) throw new Error(`${ref} has no entrypoint naming node: rebuild it with \`npm start\``);
  return { image: ref, node: entry, id: images[0].Id };
}

/** Copies `ref` from one engine to the other through their APIs (an export streamed into a load), unless it is there. */
async function copyImage(from: Docker, to: Docker, ref: string, id: string): Promise<void> {
  const have = await to.getImage(ref).inspect().catch(() => null);
  if ((have as { Id?: string } | null)?.Id === id) return;
  const tarball = await from.getImage(ref).get();
  const loaded = await to.loadImage(tarball);
  await new Promise<void>((resolve, reject) => to.modem.followProgress(loaded, (err: Error | null) => (err ? reject(err) : resolve())));
}

export async function nodeJoinCommand(args: string[], log: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const { values } = parseArgs({ args, options: { engine: { type: "string" }, address: { type: "string" }, name: { type: "string" }, role: { type: "string" } }, strict: true, allowPositionals: false });
  if (!values.engine) throw new Error(`--engine is required (the candidate's DOCKER_HOST, unix:// or tcp://): ${USAGE}`);
  if (!/^(unix|tcp):\/\//.test(values.engine)) throw new Error(`--engine ${values.engine}: must be unix:///path or tcp://host:port`);
  if (!values.address || isIP(values.address) === 0) throw new Error(`--address must be the candidate's IP address on the network the nodes share: ${USAGE}`);
  const role = values.role ?? "worker";
  if (role !== "worker" && role !== "manager") throw new Error(`--role ${role}: must be worker or manager`);

  const managerDocker = engineAt(process.env.DOCKER_HOST || "unix:///var/run/docker.sock");
  const info = (await managerDocker.info()) as { Name?: string; Swarm?: { NodeAddr?: string; ControlAvailable?: boolean } };
  if (!info.Swarm?.ControlAvailable || !info.Swarm.NodeAddr) throw new Error("this engine is not a swarm manager: run `docker swarm init --advertise-addr <address>` on it first");
  const manager: JoinEngine = { name: info.Name ?? "manager", address: info.Swarm.NodeAddr, docker: managerDocker };
  const candidateDocker = engineAt(values.engine);
  const candidate: JoinEngine = { name: values.name ?? ((await candidateDocker.info()) as { Name?: string }).Name ?? values.address, address: values.address, docker: candidateDocker };

  const image = await dataPlaneImage(managerDocker);
  log(`copying ${image.image} to ${candidate.name} for the checks (when missing)`);
  await copyImage(managerDocker, candidateDocker, image.image, image.id);
  const r = await joinNode({ manager, candidate, role, probe: { image: image.image, node: image.node, shortName: process.env.LEVELRAIL_SHORT_NAME || "levelrail" }, log });
  for (const id of r.verdict.passed) log(`  ok    ${id}`);
  for (const u of r.verdict.unverified) log(`  ?     ${u.id}: ${u.detail}`);
  for (const f of r.verdict.failed) log(`  FAIL  ${f.id}: ${f.message}\n        fix: ${f.fix}`);
  if (!r.joined) {
    log(`${candidate.name} was not joined: ${r.verdict.failed.length} check(s) failed`);
    return 1;
  }
  log(`${candidate.name} joined the swarm as a ${role} (node ${r.nodeId}); it shows on the Nodes page`);
  return 0;
}
