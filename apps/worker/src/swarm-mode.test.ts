import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import type Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { swarmMode } from "./swarm-mode";

/** An engine API that answers only container inspects, from `containers` (by name), else 404. */
const engine = (containers: Record<string, unknown>, asked: string[] = []) =>
  ({
    getContainer: (name: string) => ({
      inspect: async () => {
        asked.push(name);
        if (name in containers) return containers[name];
        throw Object.assign(new Error("no such container"), { statusCode: 404 });
      },
    }),
  }) as unknown as Docker;
const runtime = { exec: async () => ({ exitCode: 0 }) };
const edge = {
  "lr-edge": { State: { Running: true }, Config: { Entrypoint: ["/usr/bin/node", "-e", "…"], Labels: {} } },
  "lr-edge-caddy": { State: { Running: true }, Config: { Entrypoint: ["/usr/bin/caddy"], Labels: { "levelrail.edge.home": "/var/lib/levelrail/caddy" } } },
};

describe("whether the worker runs releases on the swarm", () => {
  it("not on one engine: nothing else is asked", async () => {
    const swarm = new FakeSwarm();
    swarm.info = { kind: "single", nodeId: null, name: "host" };
    const asked: string[] = [];
    expect(await swarmMode(engine(edge, asked), runtime, swarm, "lr")).toBeNull();
    expect(asked).toEqual([]);
  });

  it("not on a swarm manager without the edge ingress (or with its holder stopped): it keeps serving as it did", async () => {
    const swarm = new FakeSwarm();
    expect(await swarmMode(engine({}), runtime, swarm, "lr")).toBeNull();
    expect(await swarmMode(engine({ ...edge, "lr-edge": { ...edge["lr-edge"], State: { Running: false } } }), runtime, swarm, "lr")).toBeNull();
  });

  it("on a swarm manager with the edge: Caddy's admin API on the edge's socket", async () => {
    const mode = await swarmMode(engine(edge), runtime, new FakeSwarm(), "lr");
    expect(mode?.caddyAdmin.adminConfig).toEqual({ listen: "unix//var/lib/levelrail/caddy/admin.sock", origins: ["localhost"] });
  });
});
