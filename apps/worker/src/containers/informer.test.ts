import { describe, expect, it } from "vitest";
import type { ContainerEvent, ContainerSummary } from "@levelrail/docker";
import { FakeEngine } from "@levelrail/docker/fake";
import { DatabaseRoles, Roles, databaseLabels, serviceLabels } from "@levelrail/spec/naming";
import { ContainerInformer, type InformerRuntime, statusKey } from "./informer";

const SHORT = "lrt";
const owner = (serviceId: string) => ({ serviceId, appId: "app-1", environmentId: "env-1", releaseId: "rel-1" });
const labels = (service: string) => serviceLabels(SHORT, owner(service), Roles.service);

/** The fake engine behind a counter of the informer's engine calls, by method. */
function world() {
  const engine = new FakeEngine();
  engine.add({ name: "a", labels: labels("s1"), state: "running" });
  engine.add({ name: "b", labels: labels("s2"), state: "running" });
  engine.add({ name: "other-instance", labels: serviceLabels("other", owner("s1"), Roles.service), state: "running" });
  engine.add({ name: "not-ours", labels: { "levelrail.service": "s1" }, state: "running" });
  const calls: string[] = [];
  /** While set, a listing waits for it before it answers (what the engine had when asked). */
  const gate: { list: Promise<void> | null } = { list: null };
  const runtime: InformerRuntime = {
    async listContainersBrief(filters): Promise<ContainerSummary[]> {
      calls.push("list");
      const answer = await engine.listContainersBrief(filters);
      if (gate.list) await gate.list;
      return answer;
    },
    inspectContainer: (idOrName) => (calls.push(`inspect ${idOrName}`), engine.inspectContainer(idOrName)),
    watchContainers: (f, onEvent, onConnected) => engine.watchContainers(f, onEvent, onConnected),
  };
  const events: { e: ContainerEvent; seen: string[] }[] = [];
  let reconnected = () => {};
  const informer = new ContainerInformer({
    runtime,
    shortName: SHORT,
    log: () => {},
    // What a handler reads when it is told: the index has the change already.
    onEvent: (e) => events.push({ e, seen: informer.byService("s1").map((c) => `${c.name} ${c.state}`) }),
    onReconnected: () => reconnected(),
  });
  const reconnect = () =>
    new Promise<void>((resolve) => {
      reconnected = resolve;
      engine.reconnect();
    });
  return { engine, informer, calls, events, gate, reconnect };
}

const names = (i: ContainerInformer) => i.list().map((c) => c.name).sort();

describe("container informer", () => {
  it("finds a managed database's containers by its id, and forgets them once gone", async () => {
    const { engine, informer } = world();
    engine.add({ name: "db", labels: databaseLabels(SHORT, { databaseId: "d1", environmentId: "env-1" }, DatabaseRoles.database), state: "running" });
    engine.add({ name: "db-verify", labels: databaseLabels(SHORT, { databaseId: "d1", environmentId: "env-1" }, DatabaseRoles.verify), state: "running" });
    await informer.start();
    expect(informer.byDatabase("d1").map((c) => c.name).sort()).toEqual(["db", "db-verify"]);
    expect(informer.byDatabase("d2")).toEqual([]);
    await engine.removeContainer("db-verify");
    await informer.settled();
    expect(informer.byDatabase("d1").map((c) => c.name)).toEqual(["db"]);
    informer.forget("id-db");
    expect(informer.byDatabase("d1")).toEqual([]);
    informer.stop();
  });

  it("starts with every container of this instance, inspected, and finds a service's by its id", async () => {
    const { informer, calls } = world();
    await informer.start();
    expect(names(informer)).toEqual(["a", "b"]);
    expect(informer.byService("s1").map((c) => c.name)).toEqual(["a"]);
    expect(informer.byService("s3")).toEqual([]);
    expect([...informer.serviceIds()].sort()).toEqual(["s1", "s2"]);
    expect(calls).toEqual(["list", "inspect id-a", "inspect id-b"]);
  });

  it("an event re-inspects only the container it names, before its handlers hear of it", async () => {
    const { engine, informer, calls, events } = world();
    await informer.start();
    calls.length = 0;
    engine.exit("a", 137);
    await informer.settled();
    expect(calls).toEqual(["inspect id-a"]);
    expect(informer.byService("s1")).toEqual([expect.objectContaining({ name: "a", state: "exited", exitCode: 137 })]);
    expect(events.map(({ e, seen }) => [e.action, seen])).toEqual([["die", ["a exited"]]]);

    await engine.removeContainer("a");
    await informer.settled();
    expect(names(informer)).toEqual(["b"]);
    expect(calls).toEqual(["inspect id-a"]); // a destroy needs no inspect
  });

  it("a relist is one engine call; it finds what was created, changed and removed behind its back", async () => {
    const { engine, informer, calls } = world();
    await informer.start();
    engine.dropEvents = true;
    engine.add({ name: "c", labels: labels("s3"), state: "running" });
    await engine.removeContainer("b");
    engine.exit("a", 1);
    calls.length = 0;
    await informer.relist();
    expect(calls.sort()).toEqual(["inspect id-a", "inspect id-c", "list"]);
    expect(names(informer)).toEqual(["a", "c"]);
    expect(informer.byService("s1")[0]).toMatchObject({ state: "exited", exitCode: 1 });

    // Nothing changed: the listing is all it costs.
    calls.length = 0;
    await informer.relist();
    expect(calls).toEqual(["list"]);
  });

  it("a reconnect after a gap in the events inspects everything again, then says so", async () => {
    const { engine, informer, calls, reconnect } = world();
    await informer.start();
    engine.dropEvents = true;
    engine.restart("a", 1); // still running: only an inspect shows the restart
    await engine.removeContainer("b");
    calls.length = 0;
    await reconnect();
    expect(calls.sort()).toEqual(["inspect id-a", "list"]);
    expect(names(informer)).toEqual(["a"]);
    expect(informer.byService("s1")[0]).toMatchObject({ state: "running", restartCount: 1 });
  });

  it("what a writer told it while a relist was on its way is not undone by that relist", async () => {
    const { engine, informer, gate } = world();
    await informer.start();
    engine.dropEvents = true;
    let answer = () => {};
    gate.list = new Promise((resolve) => (answer = resolve));
    const relist = informer.relist(); // the engine answers with a and b
    await Promise.resolve();
    await engine.removeContainer("a");
    informer.forget("id-a");
    engine.add({ name: "d", labels: labels("s4"), state: "created" });
    await informer.refresh("d");
    answer();
    await relist;
    expect(names(informer)).toEqual(["b", "d"]);
  });

  it("a refresh by name of a container that is gone drops it", async () => {
    const { engine, informer } = world();
    await informer.start();
    engine.dropEvents = true;
    await engine.removeContainer("b");
    await informer.refresh("b");
    expect(names(informer)).toEqual(["a"]);
  });

  it("compares the engine's status without its durations", () => {
    expect(statusKey("Up 5 minutes (healthy)")).toBe("Up (healthy)");
    expect(statusKey("Up Less than a second")).toBe("Up");
    expect(statusKey("Up About an hour")).toBe("Up");
    expect(statusKey("Exited (137) 3 seconds ago")).toBe("Exited (137)");
    expect(statusKey("Restarting (1) About a minute ago")).toBe("Restarting (1)");
    expect(statusKey("Created")).toBe("Created");
  });
});
