import { FakeSwarm } from "@levelrail/docker/swarm/fake";
import { describe, expect, it } from "vitest";
import { DB_ID, SHORT, database } from "../database/plan.cases";
import { pinnedServiceSpec } from "../database/pinned";
import { postgresEngine } from "../database/engines/postgres";
import { releaseServiceSpec } from "./desired";
import { changedServices, taskFingerprints, watchSwarmTasks } from "./watch";

const spec = (serviceId: string, replicas: number) =>
  releaseServiceSpec("lr", { serviceId, service: `s-${serviceId}`, appId: "app1", environmentId: "env1", releaseId: "rel1", restartNonce: "", image: "reg/web:v1", port: 8080, healthPath: "/", replicas, placement: {}, env: {}, readyBudgetSeconds: 60 }, null);

describe("the swarm's task changes", () => {
  it("a service is woken when its release's tasks change (one replaced, its service gone), not when another's do", async () => {
    const swarm = new FakeSwarm();
    swarm.addNode({ id: "m", address: "10.0.0.1" });
    swarm.addNode({ id: "w", address: "10.0.0.2", role: "worker" });
    await swarm.createOverlayNetwork({ name: "lr-app-app1", labels: {}, subnet: null, gateway: null, encrypted: false, mtu: null });
    const a = (await swarm.createService(spec("svc-a", 2)))!;
    await swarm.createService(spec("svc-b", 1));
    const woken: string[] = [];
    const watch = watchSwarmTasks({ swarm, shortName: "lr", wake: (id) => woken.push(id), log: () => {} });
    expect(await watch.tick()).toEqual([]); // the first look only learns
    expect(await watch.tick()).toEqual([]);

    // The worker drained: the swarm replaces A's task there on the manager (B's one task runs on the manager: untouched).
    expect([...swarm.tasks.values()].filter((t) => t.nodeId === "w").map((t) => t.serviceId)).toEqual([a]);
    await swarm.updateNode("w", { availability: "drain" });
    expect(await watch.tick()).toEqual(["svc-a"]);
    await swarm.removeService(a);
    expect(await watch.tick()).toEqual(["svc-a"]);
    expect(woken).toEqual(["svc-a", "svc-a"]);
  });

  it("fingerprints only release services (a hook's job is not one), and names every change", () => {
    const before = new Map([["a", "t1:running"], ["b", "t2:running"]]);
    expect(changedServices(before, new Map([["a", "t1:running"], ["c", ""]]))).toEqual(["b", "c"]);
    const svc = { id: "s1", name: "x", version: 1, labels: { "levelrail.service": "a", "levelrail.role": "pre-deploy" }, image: "", replicas: 1, constraints: [], secrets: [], networks: [], updateState: null, createdAt: 0 };
    expect(taskFingerprints([svc], [])).toEqual(new Map());
  });

  it("a pinned database is woken when its server's task changes, and only with a way to wake it", async () => {
    const swarm = new FakeSwarm();
    swarm.addNode({ id: "m", address: "10.0.0.1" });
    swarm.addNode({ id: "w", address: "10.0.0.2", role: "worker" });
    await swarm.createOverlayNetwork({ name: `${SHORT}-db-${DB_ID}`, labels: {}, subnet: null, gateway: null, encrypted: false, mtu: null });
    const engine = postgresEngine({ exec: async () => ({ exitCode: 0 }), execStream: async () => Promise.reject(new Error("unused")) });
    const secret = await swarm.createSecret(`${SHORT}-db-${DB_ID}-password`, {}, "pw");
    const server = (await swarm.createService(pinnedServiceSpec(SHORT, database({ placement: { disk: "ssd" }, nodeId: "w" }), engine, [], secret)))!;
    const woken: string[] = [];
    const dbs: string[] = [];
    const watch = watchSwarmTasks({ swarm, shortName: SHORT, wake: (id) => woken.push(id), wakeDatabase: (id) => dbs.push(id), log: () => {} });
    await watch.tick();
    await watch.tick();
    expect(dbs).toEqual([]);
    await swarm.removeService(server);
    await watch.tick();
    expect({ dbs, woken }).toEqual({ dbs: [DB_ID], woken: [] });
  });
});
