import { Readable } from "node:stream";
import { ensureNodeImage } from "@levelrail/testkit/node-image";
import { type SwarmHarness, type SwarmNode, startSwarm } from "@levelrail/testkit/swarm";
import { pack } from "tar-stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { nodeJoinCommand } from "./node-join";

// `levelrail node join` on real engines in network namespaces: run on the manager's engine, it
// copies the data plane's image to the candidate through the engines' APIs, checks, prints each
// check, and joins. Run by `npm run test:swarm`, as root.

const short = process.env.LEVELRAIL_SHORT_NAME ?? "lrsw";
let h: SwarmHarness;
const node = (i: number) => h.nodes[i - 1] as SwarmNode;

/** A stand-in for the data plane's image on the manager: Node.js with it as the entrypoint, tagged as the product tags it. */
async function dataPlaneStandIn(n: SwarmNode): Promise<void> {
  const base = await ensureNodeImage(n.docker);
  const tar = pack();
  tar.entry({ name: "Dockerfile" }, `FROM ${base.image}\nENTRYPOINT ["${base.node}"]\n`);
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const c of tar) chunks.push(c as Buffer);
  const stream = await n.docker.buildImage(Readable.from([Buffer.concat(chunks)]), { t: "levelrail/mesh-dns:jointest" });
  await new Promise<void>((resolve, reject) => n.docker.modem.followProgress(stream, (err: Error | null) => (err ? reject(err) : resolve())));
}

beforeAll(async () => {
  h = await startSwarm({ shortName: short, nodes: 2, join: false, heartbeatSeconds: 1 });
  await dataPlaneStandIn(h.manager);
}, 180_000);

afterAll(async () => {
  await h?.stop();
});

it("refuses bad arguments before touching an engine", async () => {
  await expect(nodeJoinCommand(["--address", "10.0.0.1"])).rejects.toThrow(/--engine is required/);
  await expect(nodeJoinCommand(["--engine", "ssh://x", "--address", "10.0.0.1"])).rejects.toThrow(/must be unix/);
  await expect(nodeJoinCommand(["--engine", "unix:///nope.sock", "--address", "not-an-ip"])).rejects.toThrow(/--address must be/);
  await expect(nodeJoinCommand(["--engine", "unix:///nope.sock", "--address", "10.0.0.1", "--role", "boss"])).rejects.toThrow(/must be worker or manager/);
});

it("joins a candidate through the engines' APIs, printing every check", async () => {
  const lines: string[] = [];
  const before = process.env.DOCKER_HOST;
  process.env.DOCKER_HOST = h.manager.dockerHost;
  try {
    expect(await nodeJoinCommand(["--engine", node(2).dockerHost, "--address", node(2).address, "--name", "second"], (l) => lines.push(l))).toBe(0);
  } finally {
    if (before === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = before;
  }
  const out = lines.join("\n");
  expect(out).toContain(`ok    port 2377/tcp ${node(2).address}→${h.manager.address}`);
  expect(out).toContain("ok    mtu");
  expect(out).toMatch(/second joined the swarm as a worker \(node \w+\)/);
  expect(out).not.toMatch(/SWMTKN/);
  expect(await node(2).docker.getImage("levelrail/mesh-dns:jointest").inspect()).toBeTruthy();
  expect((await h.manager.docker.listNodes()).length).toBe(2);
});
