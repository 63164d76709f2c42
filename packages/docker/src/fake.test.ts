import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { FakeEngine } from "./fake";

const NET = "lrt-app-a";
const labels = { "levelrail.managed": "true", "levelrail.service": "s1" };

function engine() {
  const e = new FakeEngine();
  e.now = () => 1_000;
  e.addNetwork({ name: NET, labels: { "levelrail.app": "a" }, subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
  return e;
}

describe("FakeEngine", () => {
  it("keeps containers: create, start (an address on its network), filters by label, refuses a taken name", async () => {
    const e = engine();
    const id = await e.createContainer({ name: "web-1", Labels: labels, HostConfig: { NetworkMode: NET } });
    expect(await e.createContainer({ name: "web-1" })).toBeNull();
    await e.startContainer(id!);
    expect(await e.listContainers(["levelrail.service=s1"])).toEqual([
      expect.objectContaining({ name: "web-1", state: "running", startedAt: 1_000, addresses: { [NET]: "10.201.0.2" }, restartPolicy: "no", exitCode: null }),
    ]);
    expect(await e.listContainers(["levelrail.service=s2"])).toEqual([]);
    expect(await e.listContainers(["levelrail.managed"])).toHaveLength(1);
    expect((await e.inspectNetwork(NET))?.containers).toEqual([id]);
  });

  it("merges an image's labels into its containers' as the engine does, the container's own winning", async () => {
    const e = engine();
    e.imageLabels.set("sha256:img", { "levelrail.role": "pre-deploy", "org.opencontainers.image.title": "web" });
    await e.createContainer({ name: "web-1", Image: "sha256:img", Labels: { ...labels, "levelrail.role": "service" } });
    await e.createContainer({ name: "web-2", Image: "sha256:img", Labels: labels });
    expect(e.get("web-1")?.labels).toEqual({ ...labels, "levelrail.role": "service", "org.opencontainers.image.title": "web" });
    expect(e.get("web-2")?.labels["levelrail.role"]).toBe("pre-deploy");
  });

  it("by default runs a service's container until stopped and lets a pre-deploy hook's exit 0 (by its role and name, not any role label)", async () => {
    const e = engine();
    await e.createContainer({ name: "web-1", Labels: { ...labels, "levelrail.role": "service" } });
    await e.createContainer({ name: "web-2", Labels: { ...labels, "levelrail.role": "pre-deploy" } }); // an image's label on a service container
    await e.createContainer({ name: "web-1-pre-deploy", Labels: { ...labels, "levelrail.role": "pre-deploy" } });
    for (const n of ["web-1", "web-2", "web-1-pre-deploy"]) await e.startContainer(n);
    expect([e.get("web-1")?.state, e.get("web-2")?.state, e.get("web-1-pre-deploy")?.state]).toEqual(["running", "running", "exited"]);
  });

  it("scripts a process: output, exit, a restart by the engine, a crash loop", async () => {
    const e = engine();
    e.script = () => ({ chunks: ["hello\n"], exit: 3 });
    const id = (await e.createContainer({ name: "job" }))!;
    await e.startContainer(id);
    expect(await e.inspectContainer(id)).toMatchObject({ state: "exited", exitCode: 3, finishedAt: 1_000 });
    expect(await e.waitExit(id)).toBe(3);
    expect(await e.containerLogs(id, 10)).toBe("hello\n");

    e.add({ name: "live", state: "running", restartPolicy: "unless-stopped" });
    e.restart("live", 137);
    expect(await e.inspectContainer("live")).toMatchObject({ state: "running", restartCount: 1, exitCode: 137 });
    e.crashLoop("live", 1, 3);
    expect(await e.inspectContainer("live")).toMatchObject({ state: "restarting", restartCount: 4, exitCode: 1 });
  });

  it("pulls from its registry with the login given, or fails as told", async () => {
    const e = engine();
    e.registry.set("shop:1", "sha256:1");
    e.failNextPull("toomanyrequests");
    await expect(e.pullImage("shop:1", null, () => {})).rejects.toThrow("toomanyrequests");
    await e.pullImage("shop:1", { username: "u", password: "p", serveraddress: "r" }, () => {});
    expect(await e.imageId("shop:1")).toBe("sha256:1");
    await expect(e.pullImage("nope:1", null, () => {})).rejects.toThrow(/not found/);
    expect(e.pulls.map((p) => [p.ref, p.auth?.username ?? null])).toEqual([["shop:1", null], ["shop:1", "u"], ["nope:1", null]]);
  });

  it("removing a container ends its waits and follows, and emits events to watchers of its labels", async () => {
    const e = engine();
    const events: string[] = [];
    const stop = e.watchContainers(["levelrail.service=s1"], (ev) => events.push(ev.action));
    const id = (await e.createContainer({ name: "w", Labels: labels }))!;
    await e.startContainer(id);
    const waited = e.waitExit(id);
    const followed = e.followLogs(id, () => {});
    await e.removeContainer(id);
    expect(await waited).toBe(137);
    await followed;
    stop();
    await e.createContainer({ name: "w2", Labels: labels });
    expect(events).toEqual(["create", "start", "destroy"]);
    expect(e.calls).toEqual(["create w", "start w", "remove w", "create w2"]);
  });

  it("networks: created once per name, listed by label without their containers", async () => {
    const e = engine();
    expect(await e.createNetwork(NET, {}, "10.201.0.64/26", "10.201.0.65")).toBe(false);
    expect(await e.createNetwork("lrt-app-b", { "levelrail.app": "b" }, "10.201.0.64/26", "10.201.0.65")).toBe(true);
    expect((await e.listNetworks(["levelrail.app=b"])).map((n) => [n.name, n.gateway, n.containers])).toEqual([["lrt-app-b", "10.201.0.65", []]]);
  });
});

describe("FakeEngine: streams, volumes, network aliases", () => {
  it("execStream runs the script on what stdin held; a failing input fails done", async () => {
    const e = engine();
    await e.createContainer({ name: "db-1", Labels: labels });
    e.execScript = (argv, stdin) => ({ chunks: [`${argv.join(" ")}:`, stdin ?? Buffer.from("-")], exit: 3, stderr: "oops" });
    const out = await e.execStream("db-1", ["wc", "-c"], { stdin: Readable.from([Buffer.from("abc")]) });
    expect(Buffer.concat(await out.stdout.toArray()).toString()).toBe("wc -c:abc");
    expect(await out.done).toEqual({ exitCode: 3, stderrTail: "oops" });

    const failing = new Readable({ read() {} });
    const broken = await e.execStream("db-1", ["cat"], { stdin: failing });
    failing.destroy(new Error("download failed"));
    await expect(broken.done).rejects.toThrow("download failed");
    expect(await broken.stdout.toArray()).toEqual([]);
  });

  it("keeps volumes: an existing name answers as it is; one a container mounts cannot be removed", async () => {
    const e = engine();
    expect(await e.createVolume("v1", { "levelrail.database": "d1" })).toEqual({ name: "v1", labels: { "levelrail.database": "d1" } });
    expect((await e.createVolume("v1", { other: "x" })).labels).toEqual({ "levelrail.database": "d1" });
    await e.createVolume("v2", {});
    expect((await e.listVolumes(["levelrail.database=d1"])).map((v) => v.name)).toEqual(["v1"]);
    const id = await e.createContainer({ name: "db-1", HostConfig: { Binds: ["v1:/var/lib/postgresql/data"] } });
    await expect(e.removeVolume("v1")).rejects.toMatchObject({ statusCode: 409 });
    await e.removeContainer(id!);
    await e.removeVolume("v1");
    await e.removeVolume("v1");
    expect(await e.inspectVolume("v1")).toBeNull();
  });

  it("connectNetwork joins a container under its aliases, once", async () => {
    const e = engine();
    const id = await e.createContainer({ name: "db-1", Labels: labels });
    await e.connectNetwork(NET, id!, ["shop-db"]);
    await e.connectNetwork(NET, id!, ["shop-db"]);
    expect(e.networks.get(NET)).toMatchObject({ containers: [id], aliases: { [id!]: ["shop-db"] } });
    expect(Object.keys((await e.inspectContainer(id!))!.addresses)).toEqual([NET]);
    await expect(e.connectNetwork("nope", id!, [])).rejects.toMatchObject({ statusCode: 404 });
  });
});
