import { randomBytes, randomInt } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dockerRuntime } from "@levelrail/docker";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { meshZone, networkLabels, networkName } from "@levelrail/spec/naming";
import { ensureTestImage } from "@levelrail/testkit/images";
import { freePort } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { DataPlane } from "../src/server";

/**
 * The mesh DNS on two app networks of the real engine: every app network is a bridge of this host,
 * so a container can send a query to another app's gateway; that gateway must refuse it (it would
 * give away the other app's names and addresses).
 */
const short = `lrdp${randomBytes(2).toString("hex")}`;
const zone = meshZone(short);
const runtime = dockerRuntime({ dockerHost: process.env.DOCKER_HOST });
const CLIENT = { tag: "levelrail-test/dns-client:v1", body: "", healthy: false, cmd: ["/bin/busybox", "sleep", "3600"] };
// A /16 of this suite's own (apart from the default pool and other suites'), a random /26 pair in it.
const third = randomInt(0, 255);
const apps = [
  { appId: `a-${short}`, app: "shop", service: "web", subnet: `10.227.${third}.0/26`, gateway: `10.227.${third}.1` },
  { appId: `b-${short}`, app: "bank", service: "ledger", subnet: `10.227.${third}.64/26`, gateway: `10.227.${third}.65` },
].map((a) => ({ ...a, network: networkName(short, a.appId), container: `${short}-${a.service}` }));
const dir = mkdtempSync(join(tmpdir(), "lr-dp-gateways-"));
const ids: string[] = [];
let plane: DataPlane | null = null;
const logs: string[] = [];

/** Runs busybox nslookup in `container` against `server`: its output (an address, or why not). */
async function nslookup(container: string, name: string, server: string): Promise<string> {
  const exec = await runtime.docker.getContainer(container).exec({ Cmd: ["/bin/busybox", "nslookup", "-type=a", name, server], AttachStdout: true, AttachStderr: true, Tty: true });
  const stream = await exec.start({ hijack: true, stdin: false, Tty: true });
  let out = "";
  stream.on("data", (c: Buffer) => (out += c.toString()));
  await new Promise((resolve) => stream.on("end", resolve));
  return out;
}

beforeAll(async () => {
  await ensureTestImage(runtime.docker, CLIENT);
  const state: DataPlaneState = { version: 1, generation: 1, services: {}, domains: {} };
  for (const a of apps) {
    await runtime.createNetwork(a.network, networkLabels(short, a.appId), a.subnet, a.gateway);
    const c = await runtime.docker.createContainer({ name: a.container, Image: CLIENT.tag, Labels: { [`${short}.test`]: "gateways" }, HostConfig: { NetworkMode: a.network } });
    ids.push(c.id);
    await c.start();
    state.services[`svc-${a.appId}`] = { appId: a.appId, app: a.app, service: a.service, container: a.container, port: 8080 };
  }
  const stateFile = join(dir, "state.json");
  writeFileSync(stateFile, JSON.stringify(state));
  plane = new DataPlane({ stateFile, shortName: short, runtime, port: await freePort(), version: "test", syncMs: 200, log: (l) => logs.push(l) });
  await plane.start();
  await waitFor("both gateways to be bound", async () => (apps.every((a) => plane!.listening.includes(`${a.gateway}:53`)) ? true : undefined), { timeoutMs: 20_000, describe: async () => logs.join("\n") });
}, 120_000);

afterAll(async () => {
  await plane?.stop();
  for (const id of ids) await runtime.docker.getContainer(id).remove({ force: true }).catch(() => undefined);
  for (const a of apps) await runtime.removeNetwork(a.network).catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe("each app network's gateway", () => {
  it("answers its own network's containers their app's names", async () => {
    for (const a of apps) {
      const address = (await runtime.inspectContainer(a.container))?.addresses?.[a.network];
      expect(address).toMatch(/^10\.227\./);
      const out = await nslookup(a.container, `${a.service}.${a.app}.${zone}`, a.gateway);
      expect(out, out).toContain(`Address: ${address}`);
    }
  });

  it("refuses a container of another app network: no name, no address of that app", async () => {
    const [shop, bank] = apps as [(typeof apps)[0], (typeof apps)[0]];
    const bankAddress = (await runtime.inspectContainer(bank.container))?.addresses?.[bank.network];
    expect(bankAddress).toMatch(/^10\.227\./);
    for (const [from, to] of [[shop, bank], [bank, shop]] as const) {
      const toAddress = (await runtime.inspectContainer(to.container))?.addresses?.[to.network];
      const out = await nslookup(from.container, `${to.service}.${to.app}.${zone}`, to.gateway);
      expect(out, out).not.toContain(toAddress!);
      expect(out, out).toMatch(/REFUSED/);
    }
  });
});
