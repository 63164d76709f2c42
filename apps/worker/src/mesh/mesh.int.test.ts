import { lookup } from "node:dns/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { createService, deleteService } from "@levelrail/services/service/write";
import { waitFor } from "@levelrail/testkit/wait";
import { meshName, networkName } from "@levelrail/spec/naming";
import { IMAGES, setupSuite } from "../../test/harness";
import { resolved, runInside, wgetArgv } from "../../test/inside";
import { hostNameservers } from "./upstream";

/** Mesh DNS inside app containers: Docker's embedded resolver forwards to the mesh DNS on the app network's gateway. */
let s: Awaited<ReturnType<typeof setupSuite>>;
let appId: string;
let other: string;

beforeAll(async () => {
  s = await setupSuite("mesh");
  appId = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } })).id;
  other = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "other" } })).id;
  await s.startWorker({ drainMs: 1000, probeIntervalMs: 100 });
  for (const [name, app] of [["api", "shop"], ["web", "shop"], ["api2", "other"]] as const) {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name, app, image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: {} });
  }
  for (const name of ["api", "web", "api2"]) expect((await s.waitPhase(name, ["running", "failed"])).phase).toBe("running");
}, 120_000);

afterAll(async () => {
  await s?.teardown();
});

/** Runs argv in the service's running container; its exit code and combined output. */
async function inside(service: string, argv: string[]): Promise<{ exitCode: number; out: string }> {
  const [c] = (await s.containers(service)).filter((x) => x.state === "running");
  if (!c) throw new Error(`no running container of ${service}`);
  return runInside(s.runtime, c.id, argv);
}

const get = wgetArgv;

const address = async (service: string, network: string) => {
  const running = (await s.containers(service)).filter((c) => c.state === "running");
  expect(running).toHaveLength(1);
  return running[0]!.addresses[network]!;
};

describe("mesh DNS inside app containers", () => {
  it("a bare service name resolves through the mesh to the active container only (no Docker alias)", async () => {
    const network = networkName(s.shortName, appId);
    const [api] = (await s.containers("api")).filter((c) => c.state === "running");
    const inspected = await s.runtime.docker.getContainer(api!.id).inspect();
    expect(inspected.NetworkSettings.Networks[network]?.Aliases ?? []).not.toContain("api");
    expect(await inside("web", get("api"))).toMatchObject({ exitCode: 0 });
  });

  it("a container resolves another service of its app by its mesh name, before and after that service is redeployed", async () => {
    const network = networkName(s.shortName, appId);
    const name = meshName(s.shortName, "shop", "api");
    const before = await address("api", network);

    const lookup1 = await inside("web", ["/bin/busybox", "nslookup", name]);
    expect(resolved(lookup1.out)).toEqual([before]);
    expect(await inside("web", get(name))).toEqual({ exitCode: 0, out: "v1\n" });

    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { image: IMAGES.v2.tag } });
    expect((await s.waitPhase("api", ["running", "failed"])).phase).toBe("running");
    const after = await address("api", network);
    expect(after).not.toBe(before);

    const lookup2 = await inside("web", ["/bin/busybox", "nslookup", name]);
    expect(resolved(lookup2.out)).toEqual([after]);
    expect(await inside("web", get(name))).toEqual({ exitCode: 0, out: "v2\n" });
  });

  it("a container does not resolve the services of another app", async () => {
    const elsewhere = meshName(s.shortName, "other", "api2");
    // The data plane knows the name on loopback (where Caddy asks) ...
    expect(await s.resolve(elsewhere)).toBe(await address("api2", networkName(s.shortName, other)));
    // ... but the shop network's gateway does not answer it.
    const r = await inside("web", ["/bin/busybox", "nslookup", elsewhere]);
    expect(r.exitCode).not.toBe(0);
    expect(r.out).not.toContain(await address("api2", networkName(s.shortName, other)));
  });

  it("a deleted service's names stop answering, inside the app network and on the data plane", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "gone", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "gone", input: {} });
    expect((await s.waitPhase("gone", ["running", "failed"])).phase).toBe("running");
    const name = meshName(s.shortName, "shop", "gone");
    const ip = await address("gone", networkName(s.shortName, appId));
    expect(await s.resolve(name)).toBe(ip);
    expect(resolved((await inside("web", ["/bin/busybox", "nslookup", name])).out)).toEqual([ip]);

    await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name: "gone" });
    await waitFor("gone's containers to be removed", async () => ((await s.containers("gone")).length === 0 ? true : undefined));
    await waitFor("the data plane to stop answering gone", async () => ((await s.resolve(name)) === null ? true : undefined), { describe: async () => String(await s.resolve(name)) });
    for (const n of [name, "gone"]) {
      const r = await inside("web", ["/bin/busybox", "nslookup", n]);
      expect(r.exitCode, r.out).not.toBe(0);
      expect(resolved(r.out)).toEqual([]);
    }
    // Nothing answers on its old address either (its container is gone).
    expect((await inside("web", get(ip))).exitCode).not.toBe(0);
  });

  it("names outside the mesh zone resolve through the host's resolvers (the mesh DNS refuses them)", async (ctx) => {
    const [web] = await s.containers("web");
    const gateway = (await s.runtime.inspectNetwork(networkName(s.shortName, appId)))?.gateway;
    expect((await s.runtime.docker.getContainer(web!.id).inspect()).HostConfig.Dns).toEqual([gateway, ...hostNameservers()]);
    // A name the product itself needs (its OS packages come from there); where the host cannot resolve it either, nothing to compare.
    const external = "deb.debian.org";
    const onHost = await lookup(external, { family: 4 }).catch(() => null);
    if (!onHost) return ctx.skip(`the host cannot resolve ${external}`);
    const r = await inside("web", ["/bin/busybox", "nslookup", "-type=a", external]);
    expect(r.out, r.out).not.toMatch(/REFUSED|can't find/);
    expect(resolved(r.out).length).toBeGreaterThan(0);
  });
});
