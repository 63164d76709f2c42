import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as dnsPacket from "dns-packet";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { Roles, containerName, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { type Scope } from "./answer";
import { DataPlane, changesAddress, containerPairs } from "./server";

const SHORT = "lrt";
/** Two environments, each with an app named `shop` (its own id and network) and a service named `web`. */
const envs = [
  { env: "env-prod", appId: "app-prod", serviceId: "svc-prod", subnet: "10.201.0.0/26", gateway: "10.201.0.1" },
  { env: "env-staging", appId: "app-staging", serviceId: "svc-staging", subnet: "10.201.1.0/26", gateway: "10.201.1.1" },
];

let plane: DataPlane | null = null;
afterEach(async () => {
  await plane?.stop();
  plane = null;
});

async function world() {
  const engine = new FakeEngine();
  const state: DataPlaneState = { version: 1, generation: 1, services: {}, domains: {} };
  for (const e of envs) {
    const network = networkName(SHORT, e.appId);
    engine.addNetwork({ name: network, labels: networkLabels(SHORT, e.appId), subnet: e.subnet, gateway: e.gateway });
    const name = containerName(SHORT, "web", { serviceId: e.serviceId, imageId: "sha256:same", restartNonce: "" });
    const id = await engine.createContainer({ name, Labels: serviceLabels(SHORT, { serviceId: e.serviceId, appId: e.appId, environmentId: e.env, releaseId: "r" }, Roles.service), HostConfig: { NetworkMode: network } });
    await engine.startContainer(id!);
    state.services[e.serviceId] = { appId: e.appId, app: "shop", service: "web", container: name, port: 8080 };
  }
  const stateFile = join(mkdtempSync(join(tmpdir(), "lr-dp-")), "state.json");
  writeFileSync(stateFile, JSON.stringify(state));
  plane = new DataPlane({ stateFile, shortName: SHORT, runtime: engine, port: 0, version: "test", gateways: false, log: () => {} });
  await plane.start();
  const address = (serviceId: string) => {
    const e = envs.find((x) => x.serviceId === serviceId)!;
    return engine.get(state.services[serviceId]!.container)!.addresses[networkName(SHORT, e.appId)]!;
  };
  return { state, address, engine, stateFile };
}

async function ask(name: string, scope: Scope) {
  const q = dnsPacket.encode({ type: "query", id: 7, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: "A", name }] });
  const p = dnsPacket.decode((await plane!.answer(q, scope))!);
  return { rcode: (p.flags ?? 0) & 0xf, addresses: (p.answers ?? []).flatMap((a) => (a.type === "A" ? [a.data] : [])) };
}

describe("the data plane with two apps named alike in two environments", () => {
  it("gives the two `web` containers two names, and each gateway answers `web` and its mesh name with its own app's container only", async () => {
    const w = await world();
    expect(w.state.services["svc-prod"]!.container).not.toBe(w.state.services["svc-staging"]!.container);
    for (const e of envs) {
      const own = w.address(e.serviceId);
      const other = w.address(envs.find((x) => x !== e)!.serviceId);
      expect(own).not.toBe(other);
      // What the container's resolver asks for a bare `web` (search domain `shop.<zone>`) and for the full name.
      const r = await ask(`web.shop.${SHORT}.internal`, { kind: "app", appId: e.appId });
      expect(r).toEqual({ rcode: 0, addresses: [own] });
    }
  });

  it("on loopback the shared mesh name answers neither environment (NXDOMAIN); each container's own name still resolves", async () => {
    const w = await world();
    expect(await ask(`web.shop.${SHORT}.internal`, { kind: "loopback" })).toEqual({ rcode: 3, addresses: [] });
    for (const e of envs) {
      expect(await ask(`${w.state.services[e.serviceId]!.container}._ctr.${SHORT}.internal`, { kind: "loopback" })).toEqual({ rcode: 0, addresses: [w.address(e.serviceId)] });
    }
  });
});

describe("a replica that starts on a swarm state", () => {
  it("has probed the tasks before its first answer: a task that refuses connects is left out at once", async () => {
    // One task answers on 127.0.0.1:P; the other (127.0.0.2, the same port) refuses: nothing listens there.
    const { createServer } = await import("node:net");
    const open = createServer((s) => s.end());
    await new Promise<void>((r) => open.listen(0, "127.0.0.1", r));
    const port = (open.address() as { port: number }).port;
    try {
      const state: DataPlaneState = {
        version: 1,
        generation: 1,
        services: { s1: { appId: "a1", app: "shop", service: "web", container: "lrt-web-1", port, tasks: [{ name: "tlive", address: "127.0.0.1" }, { name: "tgone", address: "127.0.0.2" }] } },
        domains: {},
      };
      const stateFile = join(mkdtempSync(join(tmpdir(), "lr-dp-")), "state.json");
      writeFileSync(stateFile, JSON.stringify(state));
      plane = new DataPlane({ stateFile, shortName: SHORT, runtime: new FakeEngine(), port: 0, version: "test", gateways: false, log: () => {} });
      await plane.start();
      expect(await ask(`web.shop.${SHORT}.internal`, { kind: "loopback" })).toEqual({ rcode: 0, addresses: ["127.0.0.1"] });
    } finally {
      await new Promise((r) => open.close(r));
    }
  });
});

describe("when the data plane asks the engine again for an address", () => {
  const ctr = (name: string) => `${name}._ctr.${SHORT}.internal`;
  /** Writes the state file and waits until the replica has applied it. */
  async function publish(stateFile: string, state: DataPlaneState) {
    writeFileSync(stateFile, JSON.stringify(state));
    await vi.waitFor(() => expect(plane!.state.generation).toBe(state.generation), { timeout: 5000, interval: 20 });
  }

  it("keeps a cached address through events that change no address (the restart policy a switch sets), and asks again after a start", async () => {
    const w = await world();
    const name = w.state.services["svc-prod"]!.container;
    const id = w.engine.get(name)!.id;
    expect((await ask(ctr(name), { kind: "loopback" })).addresses).toEqual([w.address("svc-prod")]);
    const inspect = vi.spyOn(w.engine, "inspectContainer");
    await w.engine.setRestartPolicy(id, "unless-stopped");
    expect((await ask(ctr(name), { kind: "loopback" })).addresses).toEqual([w.address("svc-prod")]);
    expect(inspect).not.toHaveBeenCalled();
    await w.engine.stopContainer(id);
    expect(await ask(ctr(name), { kind: "loopback" })).toEqual({ rcode: 3, addresses: [] });
    expect(inspect).toHaveBeenCalledTimes(1);
    await w.engine.startContainer(id);
    expect((await ask(ctr(name), { kind: "loopback" })).addresses).toEqual([w.address("svc-prod")]);
    expect(inspect).toHaveBeenCalledTimes(2);
  });

  it("asks again after a state change only for a container newly named (or named for another app), not for those it names still", async () => {
    const w = await world();
    const prod = w.state.services["svc-prod"]!.container;
    const staging = w.state.services["svc-staging"]!.container;
    for (const n of [prod, staging]) await ask(ctr(n), { kind: "loopback" });
    const inspect = vi.spyOn(w.engine, "inspectContainer");
    // The same containers under a new generation and a new domain: nothing to ask.
    await publish(w.stateFile, { ...w.state, generation: 2, domains: { "shop.example.com": "svc-prod" } });
    for (const n of [prod, staging]) await ask(ctr(n), { kind: "loopback" });
    expect(inspect).not.toHaveBeenCalled();
    // The staging service switched to a new container: only that one is asked for.
    const network = networkName(SHORT, "app-staging");
    const next = containerName(SHORT, "web", { serviceId: "svc-staging", imageId: "sha256:next", restartNonce: "" });
    const id = await w.engine.createContainer({ name: next, Labels: serviceLabels(SHORT, { serviceId: "svc-staging", appId: "app-staging", environmentId: "env-staging", releaseId: "r2" }, Roles.service), HostConfig: { NetworkMode: network } });
    await w.engine.startContainer(id!);
    inspect.mockClear();
    await publish(w.stateFile, { ...w.state, generation: 3, services: { ...w.state.services, "svc-staging": { ...w.state.services["svc-staging"]!, container: next } } });
    expect((await ask(ctr(next), { kind: "loopback" })).addresses).toEqual([w.engine.get(next)!.addresses[network]]);
    await ask(ctr(prod), { kind: "loopback" });
    expect(inspect.mock.calls.map((c) => c[0])).toEqual([next]);
  });

  it("names the engine events that can change a container's addresses", () => {
    for (const a of ["start", "restart", "die", "stop", "destroy", "rename", "pause", "unpause"]) expect(changesAddress(a)).toBe(true);
    for (const a of ["update", "create", "exec_create", "exec_start", "exec_die", "attach", "health_status: healthy", "kill", "resize"]) expect(changesAddress(a)).toBe(false);
  });

  it("pairs each container entry with its app, leaving out swarm tasks", () => {
    const state: DataPlaneState = {
      version: 1,
      generation: 1,
      domains: {},
      services: {
        a: { appId: "app-1", app: "x", service: "a", container: "c-a", port: 80 },
        b: { appId: "app-2", app: "y", service: "b", container: "c-b", port: 80, tasks: [] },
      },
    };
    expect([...containerPairs(state)]).toEqual(["c-a\napp-1"]);
  });
});
