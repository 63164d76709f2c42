import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "@levelrail/services/app/app";
import { deployService } from "@levelrail/services/release/deploy";
import { getService } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { type DataPlaneState, dataPlaneStateSchema } from "@levelrail/spec/dataplane";
import { Labels, containerName, networkName } from "@levelrail/spec/naming";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { legacyContainerName, legacyPreDeployLabels, legacyServiceLabels } from "@levelrail/testkit/legacy";
import { type LoadResult, startLoad } from "@levelrail/testkit/load";
import { freePort } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * Upgrade from the version whose container names left out the service's id: its live container
 * (and a pre-deploy container it left behind) are replaced once by a blue-green cutover while a
 * load runs through Caddy, with no failed request. The real engine, Caddy, data plane, PostgreSQL.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let caddy: TestCaddy;
let ingressPort: number;
let appId: string;
let domain: string;
const ingress = () => ({ ingress: { caddyAdmin: caddy.adminUrl, httpPort: ingressPort, httpsPort: null }, drainMs: 1000, probeIntervalMs: 100 });

beforeAll(async () => {
  s = await setupSuite("upgrade");
  caddy = await startCaddy();
  ingressPort = await freePort();
  domain = `web-${s.shortName}.localhost`;
  appId = (await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } })).id;
  await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", domains: [domain] } });
  await s.startWorker(ingress());
  await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
  expect((await s.waitPhase("web", ["running", "failed"])).phase).toBe("running");
}, 120_000);

afterAll(async () => {
  await s?.teardown();
  await caddy?.stop();
});

const summary = (r: LoadResult) => JSON.stringify({ total: r.total, failed: r.failed, failures: r.failures, bodies: [...r.bodies] });

/** Writes the data plane's state as a worker does (a whole file through a rename). */
function writeState(mutate: (st: DataPlaneState) => DataPlaneState) {
  const st = dataPlaneStateSchema.parse(JSON.parse(readFileSync(s.stateFile, "utf8")));
  const next = mutate(st);
  writeFileSync(`${s.stateFile}.tmp`, JSON.stringify({ ...next, generation: st.generation + 1 }));
  renameSync(`${s.stateFile}.tmp`, s.stateFile);
}

describe("upgrading from an earlier version's container names", () => {
  it("replaces the old-shape container once, blue-green, with zero failed requests through Caddy", async () => {
    const svc = await getService({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    const [current] = await s.containers("web");
    const info = await s.runtime.docker.getContainer(current!.id).inspect();
    const imageId = info.Image;
    const network = networkName(s.shortName, appId);
    const legacyName = legacyContainerName(s.shortName, "web", imageId, "");
    const releaseId = current!.labels[Labels.release]!;
    const newName = containerName(s.shortName, "web", { serviceId: svc.id, imageId, restartNonce: "" });
    expect(newName).not.toBe(legacyName);

    // What the previous version left: its container under the old name and labels, live (unless-stopped),
    // the data plane pointing at it, a pre-deploy container of its naming left behind. The worker is down.
    await s.stopWorker();
    const legacy = await s.runtime.docker.createContainer({
      name: legacyName,
      Image: imageId,
      Env: info.Config.Env,
      Labels: { ...legacyServiceLabels(s.shortName, svc.id, appId, releaseId), "levelrail.image": IMAGES.v1.tag },
      ExposedPorts: { "8080/tcp": {} },
      HostConfig: {
        NetworkMode: network,
        Dns: info.HostConfig.Dns,
        DnsSearch: info.HostConfig.DnsSearch,
        DnsOptions: info.HostConfig.DnsOptions,
        RestartPolicy: { Name: "unless-stopped", MaximumRetryCount: 0 },
        LogConfig: { Type: "json-file", Config: { "max-size": "10m", "max-file": "3" } },
      },
      NetworkingConfig: { EndpointsConfig: { [network]: {} } },
    });
    await legacy.start();
    const hook = await s.runtime.docker.createContainer({
      name: `${legacyName}-pre-deploy`,
      Image: imageId,
      Entrypoint: ["/bin/busybox"],
      Cmd: ["true"],
      Labels: legacyPreDeployLabels(s.shortName, svc.id, appId, releaseId),
      HostConfig: { NetworkMode: network, RestartPolicy: { Name: "no", MaximumRetryCount: 0 } },
    });
    await hook.start();
    await hook.wait();
    const legacyIp = async () => (await s.runtime.inspectContainer(legacy.id))?.addresses[network];
    await waitFor("the old container to answer", async () => ((await s.body(legacy.id, network).catch(() => "")) === "v1\n" ? true : undefined));
    writeState((st) => ({ ...st, services: { ...st.services, [svc.id]: { ...st.services[svc.id]!, container: legacyName } } }));
    await waitFor("the data plane to route to the old container", async () =>
      s.dataPlane.state.services[svc.id]?.container === legacyName && (await s.resolve(`${legacyName}._ctr.${s.shortName}.internal`)) === (await legacyIp()) ? true : undefined,
    );
    await s.runtime.removeContainer(current!.id);

    const load = startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: domain, concurrency: 8, maxRequests: 400_000, maxMs: 90_000 });
    try {
      await load.successes(300); // through the old container
      expect(load.result.failed, summary(load.result)).toBe(0);

      await s.startWorker(ingress());
      await waitFor(
        "the old container to be replaced",
        async () => {
          const cs = await s.containers("web");
          return cs.length === 1 && cs[0]!.name === newName && cs[0]!.state === "running" ? cs[0] : undefined;
        },
        { timeoutMs: 60_000, describe: async () => JSON.stringify((await s.containers("web")).map((c) => [c.name, c.state])) },
      );
      await load.successes(300); // through the new one
    } finally {
      await load.stop();
    }
    const r = load.result;
    expect(r.failed, summary(r)).toBe(0);
    expect(r.hitBound, summary(r)).toBe(false);
    expect([...r.bodies.keys()]).toEqual(["v1\n"]);

    const [now] = await s.containers("web");
    expect(now!.labels).toMatchObject({
      [Labels.managed]: "true",
      [Labels.instance]: s.shortName,
      [Labels.service]: svc.id,
      [Labels.app]: appId,
      [Labels.environment]: svc.environmentId,
      [Labels.release]: releaseId,
      [Labels.role]: "service",
    });
    expect(now!.restartPolicy).toBe("unless-stopped");
    expect(await s.runtime.inspectContainer(legacyName)).toBeNull();
    expect(await s.runtime.inspectContainer(`${legacyName}-pre-deploy`)).toBeNull();
    expect(s.dataPlane.state.services[svc.id]?.container).toBe(newName);
    expect((await s.waitPhase("web", ["running"])).activeContainer).toBe(newName);
  }, 180_000);
});
