import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { domainProof } from "@levelrail/db/schema/domains";
import { createApp } from "@levelrail/services/app/app";
import { checkDomainsNow } from "@levelrail/services/domain/check";
import { deployService } from "@levelrail/services/release/deploy";
import { getService, getStatus } from "@levelrail/services/service/view";
import { createService, patchService } from "@levelrail/services/service/write";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { type TestDns, startTestDns } from "@levelrail/testkit/dns";
import { getByHost } from "@levelrail/testkit/http";
import { refusal } from "@levelrail/testkit/refusal";
import { freePort } from "@levelrail/testkit/registry";
import { seedOrg } from "@levelrail/testkit/seed";
import { waitFor } from "@levelrail/testkit/wait";
import { challengeName } from "@levelrail/spec/domains";
import { IMAGES, setupSuite } from "../../../test/harness";

/**
 * Domain ownership end to end: the real PostgreSQL, engine, data plane and Caddy, and a DNS server
 * of the test's own on loopback (the only one ever asked). The schedule is shortened: pending
 * checks from 300 ms, a verified domain re-checked every 500 ms, a grace period of 4 s.
 */
let s: Awaited<ReturnType<typeof setupSuite>>;
let caddy: TestCaddy;
let dns: TestDns;
let ingressPort: number;
let other: Awaited<ReturnType<typeof seedOrg>>;
let shop: string; // needs a proof
let api: string; // under a base domain: needs none
const BASE = "apps.lrdom.test";
const GRACE_MS = 4000;

beforeAll(async () => {
  s = await setupSuite("domains");
  s.ctx.baseDomains = [BASE];
  caddy = await startCaddy();
  dns = await startTestDns();
  ingressPort = await freePort();
  shop = `shop-${s.shortName}.example.com`;
  api = `api-${s.shortName}.${BASE}`;
  other = await seedOrg(s.db, "domains-other", s.kit);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  await s.startWorker({
    ingress: { caddyAdmin: caddy.adminUrl, httpPort: ingressPort, httpsPort: null },
    probeIntervalMs: 100,
    domains: {
      baseDomains: [BASE],
      resolver: dns.address,
      policy: { pendingBaseMs: 300, pendingMaxMs: 1000, verifiedRecheckMs: 500, lostRecheckMs: 300, graceMs: GRACE_MS, failedRecheckMs: 500 },
    },
  });
}, 120_000);

afterAll(async () => {
  await s?.teardown();
  await caddy?.stop();
  await dns?.close();
});

const viaCaddy = (host: string) => getByHost(ingressPort, host).catch((e: unknown) => ({ status: 0, body: String(e) }));
const answers = (host: string, status: number, body: RegExp, timeoutMs = 30_000) =>
  waitFor(`${host} to answer ${status} ${body} through Caddy`, async () => {
    const r = await viaCaddy(host);
    return r.status === status && body.test(r.body) ? r : undefined;
  }, { timeoutMs, describe: async () => JSON.stringify(await viaCaddy(host)) });
/** The data plane's TLS `ask`: may Caddy get a certificate for the domain? */
const ask = async (domain: string) => (await fetch(`http://127.0.0.1:${s.dataPlanePort}/ask?domain=${domain}`)).status;
const statusOf = async (domain: string) => (await getService({ ctx: s.ctx, envId: s.ctx.envId, name: "web" })).domainStatus[domain]!;
const waitStatus = (domain: string, test: (d: Awaited<ReturnType<typeof statusOf>>) => boolean, what: string, timeoutMs = 20_000) =>
  waitFor(`${domain}: ${what}`, async () => {
    const d = await statusOf(domain);
    return test(d) ? d : undefined;
  }, { timeoutMs, describe: async () => JSON.stringify(await statusOf(domain)) });

describe("domain ownership", () => {
  it("a domain that needs a proof serves nothing of the app until its TXT record holds the token; a base domain routes at once", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", domains: [shop, api] } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
    expect((await s.waitPhase("web", ["running", "failed"])).phase).toBe("running");

    // The base domain's subdomain serves the app without any question to DNS.
    await answers(api, 200, /^v1\n$/);
    expect(await statusOf(api)).toEqual({ status: "verified", exempt: true, record: null, lastCheck: null, verifiedAt: null, routable: true });

    // The other one waits: the API shows the record to create and the last check's result.
    const pending = await waitStatus(shop, (d) => d.lastCheck !== null, "checked once");
    const record = pending.record!;
    expect(record).toEqual({ type: "TXT", name: challengeName(shop), value: expect.stringMatching(/^levelrail-verification=[0-9a-f]{32}$/) });
    expect(pending).toMatchObject({ status: "pending", exempt: false, routable: false, lastCheck: { result: `no TXT record at ${record.name}` } });
    expect(dns.questions).toContain(`TXT ${record.name}`);
    expect(dns.questions.some((q) => q.includes(api))).toBe(false);
    // Caddy serves it the fallback page, and no certificate would be asked for.
    const fallback = await viaCaddy(shop);
    expect(fallback.status).toBe(404);
    expect(fallback.body).not.toContain("v1");
    expect(await ask(shop)).toBe(404);
    const st = await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    expect(st.ingress).toMatchObject({ live: false, message: expect.stringContaining(record.name) });

    // The record appears; "Check now" makes the worker look at once (its backoff would take up to 1 s).
    dns.set(record.name, ["unrelated", record.value]);
    const t0 = Date.now();
    const now = await checkDomainsNow({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    expect(Object.keys(now.domainStatus)).toEqual([shop, api]);
    await answers(shop, 200, /^v1\n$/);
    const routedMs = Date.now() - t0;
    const verified = await statusOf(shop);
    expect(verified).toMatchObject({ status: "verified", routable: true, verifiedAt: expect.any(String), lastCheck: { result: `${record.name} holds the token` } });
    expect(await ask(shop)).toBe(200);
    await waitFor("ingress live", async () => ((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "web" })).ingress?.live ? true : undefined));
    console.log(`[domains] record set → routed through Caddy in ${routedMs} ms`);
  }, 120_000);

  it("a domain another organization has proven is a 409 that does not name it; an unproven one stays open", async () => {
    await createApp({ ctx: other, envId: other.envId, input: { name: "site" } });
    const create = await refusal(() => createService({ ctx: other, envId: other.envId, input: { name: "www", app: "site", image: "nginx:1.27", port: 80, domains: [shop] } }));
    expect(create).toMatchObject({ code: "conflict", field: "domains" });
    await createService({ ctx: other, envId: other.envId, input: { name: "www", app: "site", image: "nginx:1.27", port: 80 } });
    const patch = await refusal(() => patchService({ ctx: other, envId: other.envId, name: "www", input: { domains: [shop.toUpperCase()] } }));
    expect(patch).toMatchObject({ code: "conflict", field: "domains" });
    for (const e of [create, patch]) {
      expect(e.message).not.toContain(s.ctx.orgId);
      expect(e.message).not.toContain("web");
    }
    // A domain nobody has proven can be claimed by anyone: an unproven claim keeps it from nobody (whoever proves it routes it).
    const open = `open-${s.shortName}.example.com`;
    await patchService({ ctx: other, envId: other.envId, name: "www", input: { domains: [open] } });
    expect((await getService({ ctx: other, envId: other.envId, name: "www" })).domainStatus[open]).toMatchObject({ status: "pending", routable: false });
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: { domains: [shop, api, open] } });
    const mine = await waitStatus(open, (d) => d.lastCheck !== null, "checked once");
    dns.set(mine.record!.name, [mine.record!.value]);
    await waitStatus(open, (d) => d.status === "verified", "verified");
    await answers(open, 200, /^v1\n$/);
    // Now it is proven: the other organization's claim stays unrouted even when the record holds its token too, and it cannot claim it again.
    const theirs = (await getService({ ctx: other, envId: other.envId, name: "www" })).domainStatus[open]!;
    dns.set(mine.record!.name, [mine.record!.value, theirs.record!.value]);
    await checkDomainsNow({ ctx: other, envId: other.envId, name: "www" });
    const refused = await waitFor("the other organization's check", async () => {
      const d = (await getService({ ctx: other, envId: other.envId, name: "www" })).domainStatus[open]!;
      return d.lastCheck?.result === "another organization has proven it owns this domain" ? d : undefined;
    });
    expect(refused).toMatchObject({ status: "pending", routable: false });
    expect((await viaCaddy(open)).body).toBe("v1\n");
    await patchService({ ctx: other, envId: other.envId, name: "www", input: { domains: [] } });
    expect(await refusal(() => patchService({ ctx: other, envId: other.envId, name: "www", input: { domains: [open] } }))).toMatchObject({ code: "conflict", field: "domains" });
  });

  it("a proven domain whose record goes away keeps routing for the grace period, then stops; it comes back with the record", async () => {
    const record = (await statusOf(shop)).record!;
    dns.remove(record.name);
    const gone = Date.now();
    const lost = await waitStatus(shop, (d) => d.lastCheck?.result.includes("keeps routing") ?? false, "noticed the record is gone");
    expect(lost).toMatchObject({ status: "verified", routable: true });
    expect((await viaCaddy(shop)).body).toBe("v1\n");

    await waitStatus(shop, (d) => d.status === "failed", "failed after the grace period", GRACE_MS + 20_000);
    await answers(shop, 404, /no service has this domain/);
    const stoppedMs = Date.now() - gone;
    // Not before the grace period after the record was last seen (a re-check, up to 500 ms, before its removal).
    const [proof] = await s.db.select().from(domainProof).where(and(eq(domainProof.orgId, s.ctx.orgId), eq(domainProof.domain, shop)));
    expect(Date.now()).toBeGreaterThanOrEqual(proof!.lastSeenAt!.getTime() + GRACE_MS);
    expect(proof!.lastSeenAt!.getTime()).toBeLessThanOrEqual(gone);
    expect(await ask(shop)).toBe(404);
    expect((await statusOf(shop)).routable).toBe(false);
    // The base domain never depended on it.
    expect((await viaCaddy(api)).body).toBe("v1\n");

    dns.set(record.name, [record.value]);
    await answers(shop, 200, /^v1\n$/);
    expect(await statusOf(shop)).toMatchObject({ status: "verified", routable: true });
    console.log(`[domains] record removed → stopped routing after ${stoppedMs} ms (grace ${GRACE_MS} ms)`);
  }, 120_000);
});
