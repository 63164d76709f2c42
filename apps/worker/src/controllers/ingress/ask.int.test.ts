import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DataPlane } from "@levelrail/dataplane/server";
import { dockerRuntime } from "@levelrail/docker";
import { caddyAdminConfig } from "@levelrail/spec/caddy-admin";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { freePort, freePortPair } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { desiredServers, desiredTlsAutomation } from "./desired";

/**
 * Caddy's on-demand TLS `ask` reaches the data plane from loopback with no forwarding headers, so
 * it is answered (the data plane refuses health and `ask` to what Caddy forwards for a client).
 * Caddy's internal issuer stands in for ACME: no traffic leaves the host.
 */
const short = `lrdp${randomBytes(2).toString("hex")}`;
const domain = `shop-${short}.example.test`;
const dir = mkdtempSync(join(tmpdir(), "lr-ask-"));
let plane: DataPlane | null = null;
let caddy: TestCaddy | null = null;
let httpsPort = 0;

/** The certificate's names a TLS handshake for `servername` gets, or the handshake's error. */
function handshake(servername: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: httpsPort, servername, rejectUnauthorized: false, timeout: 10_000 }, () => {
      const names = socket.getPeerCertificate().subjectaltname ?? "";
      socket.end();
      resolve(names);
    });
    socket.on("error", (err) => resolve(`error: ${err.message}`));
    socket.on("timeout", () => socket.destroy(new Error("timeout")));
  });
}

beforeAll(async () => {
  const state: DataPlaneState = { version: 1, generation: 1, services: { s1: { appId: "a1", app: "shop", service: "web", container: `${short}-none`, port: 8080 } }, domains: { [domain]: "s1" } };
  const stateFile = join(dir, "state.json");
  writeFileSync(stateFile, JSON.stringify(state));
  const port = await freePortPair();
  plane = new DataPlane({ stateFile, shortName: short, runtime: dockerRuntime({ dockerHost: process.env.DOCKER_HOST }), port, version: "test", gateways: false, log: () => {} });
  await plane.start();
  await plane.serveTcp();
  [httpsPort, caddy] = [await freePort(), await startCaddy()];
  const settings = { shortName: short, httpPort: await freePort(), httpsPort, dataPlane: `127.0.0.1:${port}` };
  const automation = desiredTlsAutomation(settings) as { on_demand: unknown; policies: Record<string, unknown>[] };
  const tls = { automation: { ...automation, policies: automation.policies.map((p) => ({ ...p, issuers: [{ module: "internal" }] })) } };
  const config = { admin: caddyAdminConfig(caddy.adminUrl), apps: { http: { servers: desiredServers(settings) }, tls, pki: { certificate_authorities: { local: { install_trust: false } } } } };
  const res = await caddy.admin("/load", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(config) });
  expect(res.status, await res.text()).toBe(200);
}, 60_000);

afterAll(async () => {
  await caddy?.stop();
  await plane?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("on-demand TLS through the data plane's ask", () => {
  it("a domain a service has gets a certificate; one nobody has gets none", async () => {
    const names = await waitFor(`a certificate for ${domain}`, async () => {
      const r = await handshake(domain);
      return r.startsWith("error") ? undefined : r;
    }, { timeoutMs: 30_000, describe: async () => caddy!.log().slice(-2000) });
    expect(names).toContain(`DNS:${domain}`);
    expect(await handshake(`nobody-${short}.example.test`)).toMatch(/^error/);
  });
});
