import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EDGE_FEED_PATH, edgeFeedSchema, emptyDataPlaneState } from "@levelrail/spec/dataplane";
import { nodeCaddyConfig, nodeEdgeOptions, nodeMeshReplicaOptions } from "./agent";
import { AckBook, feedBodies, feedServer, fileToken } from "./feed";

const dir = mkdtempSync(join(tmpdir(), "lr-feed-"));
const caddyFile = join(dir, "edge-caddy.json");
const state = { ...emptyDataPlaneState(), generation: 4, domains: { "shop.test": "s1" } };
const acked: string[] = [];
const tokenFile = join(dir, "edge-feed.token");
writeFileSync(tokenFile, "feed-token-of-this-installation\n", { mode: 0o600 });
const server = feedServer({ state: () => state, caddyFile, networks: () => ["lr-b", "lr-a"], ack: (node, generation) => acked.push(`${node}@${generation}`), statsDir: join(dir, "node-stats"), token: fileToken(tokenFile) });
let base = "";
/** A request as a node agent makes it: with the installation's feed token. */
const agentFetch = (url: string, init: RequestInit = {}) => fetch(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), authorization: "Bearer feed-token-of-this-installation" } });
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

describe("the edge feed", () => {
  it("refuses every request without the installation's token, or with another, and answers with it", async () => {
    const refused = [
      await fetch(`${base}${EDGE_FEED_PATH}`),
      await fetch(`${base}${EDGE_FEED_PATH}?node=abc123&generation=9`, { headers: { authorization: "Bearer another-token" } }),
      await fetch(`${base}${EDGE_FEED_PATH}`, { headers: { authorization: "feed-token-of-this-installation" } }),
      await fetch(`${base}/v1/stats?node=n9`, { method: "POST", body: JSON.stringify({ readings: [] }), headers: { "content-type": "application/json" } }),
    ];
    expect(refused.map((r) => r.status)).toEqual([401, 401, 401, 401]);
    for (const r of refused) expect(await r.text()).not.toContain("shop.test");
    expect(acked).not.toContain("abc123@9"); // a refused read acknowledges nothing
    expect((await agentFetch(`${base}${EDGE_FEED_PATH}`)).status).toBe(200);
    // no token set (the file missing): everyone is refused
    const none = feedServer({ state: () => state, caddyFile, networks: () => [], token: fileToken(join(dir, "missing.token")) });
    await new Promise<void>((r) => none.listen(0, "127.0.0.1", r));
    try {
      const res = await fetch(`http://127.0.0.1:${(none.address() as AddressInfo).port}${EDGE_FEED_PATH}`, { headers: { authorization: "Bearer " } });
      expect(res.status).toBe(401);
    } finally {
      await new Promise((r) => none.close(r));
    }
  });

  it("hands the state, the edge's Caddy config and the overlays; an agent that has them gets a 304", async () => {
    const first = await agentFetch(`${base}${EDGE_FEED_PATH}`);
    expect(first.status).toBe(200);
    const feed = edgeFeedSchema.parse(await first.json());
    expect(feed).toEqual({ state, caddy: null, networks: ["lr-a", "lr-b"] });
    const etag = first.headers.get("etag")!;
    expect((await agentFetch(`${base}${EDGE_FEED_PATH}`, { headers: { "if-none-match": etag } })).status).toBe(304);
    // The worker loaded a config into the manager's edge: a new feed.
    writeFileSync(caddyFile, JSON.stringify({ admin: { listen: "unix//m/admin.sock" }, apps: { http: {} } }));
    const next = await agentFetch(`${base}${EDGE_FEED_PATH}`, { headers: { "if-none-match": etag } });
    expect(next.status).toBe(200);
    expect(edgeFeedSchema.parse(await next.json()).caddy).toEqual({ admin: { listen: "unix//m/admin.sock" }, apps: { http: {} } });
    expect((await agentFetch(`${base}/v1/other`)).status).toBe(404);
  });

  it("makes the body again only when the state, the Caddy config's file or the overlays changed", () => {
    const file = join(dir, "memo-caddy.json");
    let current = { ...emptyDataPlaneState(), generation: 1 };
    let networks = ["lr-a"];
    const bodies = feedBodies({ state: () => current, caddyFile: file, networks: () => networks });
    const first = bodies();
    expect(bodies()).toBe(first); // nothing changed: the same body, not made again
    current = { ...current, generation: 2 };
    const second = bodies();
    expect(second).not.toBe(first);
    expect(JSON.parse(second.body).state.generation).toBe(2);
    writeFileSync(file, JSON.stringify({ apps: {} }));
    const third = bodies();
    expect(JSON.parse(third.body).caddy).toEqual({ apps: {} });
    expect(bodies()).toBe(third);
    networks = ["lr-a", "lr-b"];
    expect(JSON.parse(bodies().body).networks).toEqual(["lr-a", "lr-b"]);
  });

  it("an agent's readings of its node's tasks are kept per node, with when they came; anything else is a 400", async () => {
    const readings = [{ taskId: "t1", container: "lr-web.1.t1", stats: { cpu: { containerNs: 5, systemNs: 50, onlineCpus: 2 }, precpu: null, memoryBytes: 9, memoryLimitBytes: null, netRxBytes: 1, netTxBytes: 2 } }];
    const post = (node: string, body: string) => agentFetch(`${base}/v1/stats?node=${node}`, { method: "POST", body, headers: { "content-type": "application/json" } });
    expect((await post("n2", JSON.stringify({ readings }))).status).toBe(204);
    const stored = JSON.parse(readFileSync(join(dir, "node-stats", "n2.json"), "utf8"));
    expect(stored).toEqual({ at: expect.any(Number), readings });
    expect((await post("n2", JSON.stringify({ readings: [{ taskId: "../x" }] }))).status).toBe(400);
    expect((await post("../n2", JSON.stringify({ readings }))).status).toBe(404);
  });

  it("an agent's read says which generation it applied; the book writes a node's change at once and its freshness every 5 s", async () => {
    await agentFetch(`${base}${EDGE_FEED_PATH}?node=abc123&generation=4`);
    await agentFetch(`${base}${EDGE_FEED_PATH}?node=Not%20An%20Id&generation=4`);
    await agentFetch(`${base}${EDGE_FEED_PATH}?node=abc123&generation=x`);
    expect(acked).toEqual(["abc123@4"]);
    let now = 1_000;
    const file = join(dir, "edge-acks.json");
    const book = new AckBook(file, 5_000, () => now);
    const read = () => JSON.parse(readFileSync(file, "utf8"));
    book.ack("n1", 3);
    expect(read()).toEqual({ nodes: { n1: { generation: 3, seenAt: 1_000 } } });
    now = 2_000;
    book.ack("n1", 3); // nothing new: not written
    expect(read().nodes.n1.seenAt).toBe(1_000);
    book.ack("n1", 4);
    expect(read().nodes.n1).toEqual({ generation: 4, seenAt: 2_000 });
    now = 7_500;
    book.ack("n1", 4);
    expect(read().nodes.n1.seenAt).toBe(7_500);
  });
});

describe("a node agent's edge", () => {
  const o = { shortName: "lr", image: "reg:5000/levelrail/edge-node:abc@sha256:1", version: "v1", hostSocket: "/tmp/x/by-node/n1/d.sock", socket: "/run/levelrail-engine/d.sock", httpPort: 80, httpsPort: null, meshPort: 10053, volume: "lr-node-edge", home: "/var/lib/levelrail-edge", nodeId: "n1", feedToken: "t", log: () => {} };

  it("its Caddy runs the manager's config with its own admin socket", () => {
    const config = nodeCaddyConfig({ admin: { listen: "unix//data/edge-caddy/admin.sock", origins: ["localhost"] }, apps: { http: { servers: { a: {} } } } }, "/var/lib/levelrail-edge/caddy");
    expect(config).toEqual({ admin: { listen: "unix//var/lib/levelrail-edge/caddy/admin.sock", origins: ["localhost"] }, apps: { http: { servers: { a: {} } } } });
  });

  it("its holder, Caddy and mesh DNS replicas run from the agent's own image, their state in the node's volume", () => {
    expect(nodeEdgeOptions(o)).toMatchObject({ holderImage: { image: o.image }, caddyImage: o.image, caddyHome: "/var/lib/levelrail-edge/caddy", homeVolume: { name: "lr-node-edge", path: o.home }, engineSocket: o.hostSocket, httpsPort: null });
    const r1 = nodeMeshReplicaOptions(o, 1);
    expect(r1.name).toBe("lr-mesh-dns-1-v1-edge");
    expect(r1.HostConfig).toMatchObject({ NetworkMode: "container:lr-edge", Binds: ["lr-node-edge:/var/lib/levelrail-edge", "/tmp/x/by-node/n1:/run/levelrail-engine"] });
    expect(r1.Env).toEqual(expect.arrayContaining(["LEVELRAIL_MESH_DNS_REPLICA=1", "LEVELRAIL_DATA_DIR=/var/lib/levelrail-edge", "DOCKER_HOST=unix:///run/levelrail-engine/d.sock"]));
  });
});
