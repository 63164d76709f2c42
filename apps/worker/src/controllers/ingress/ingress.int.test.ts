import { request } from "node:http";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { notifyDesired } from "@levelrail/db/notify";
import { service } from "@levelrail/db/schema/services";
import { createApp } from "@levelrail/services/app/app";
import { deployMetrics } from "@levelrail/services/metrics/deploys";
import { deployService, listReleases } from "@levelrail/services/release/deploy";
import { getService, getStatus } from "@levelrail/services/service/view";
import { createService, deleteService, patchService } from "@levelrail/services/service/write";
import { type TestCaddy, startCaddy } from "@levelrail/testkit/caddy";
import { type LoadResult, startLoad } from "@levelrail/testkit/load";
import { getByHost } from "@levelrail/testkit/http";
import { freePorts } from "@levelrail/testkit/registry";
import { waitFor } from "@levelrail/testkit/wait";
import { caddyAdminConfig } from "@levelrail/spec/caddy-admin";
import { INGRESS_KEY, formatKey, serviceKey } from "@levelrail/spec/keys";
import { IMAGES, setupSuite } from "../../../test/harness";

/** Ingress end to end: the real engine, the real Caddy, the mesh DNS, PostgreSQL. */
let s: Awaited<ReturnType<typeof setupSuite>>;
let caddy: TestCaddy;
let worker: Awaited<ReturnType<typeof s.startWorker>>;
let ingressPort: number;
let foreignPort: number;
let metricsPort: number;
let foreign: Record<string, unknown>;
let web: string; // the domain of `web`
let apiDomain: string;
let noopReleaseId: string;
/** The id of this suite's service `name`: reconcile keys name a service by id. */
const idOf = async (name: string) => (await getService({ ctx: s.ctx, envId: s.ctx.envId, name })).id;

beforeAll(async () => {
  s = await setupSuite("ingress");
  caddy = await startCaddy();
  [ingressPort, foreignPort, metricsPort] = (await freePorts(["one", "one", "one"])) as [number, number, number];
  web = `web-${s.shortName}.localhost`;
  apiDomain = `api-${s.shortName}.localhost`;
  // A server of someone else's, there before the worker: it must survive every change we make.
  foreign = { listen: [`127.0.0.1:${foreignPort}`], routes: [{ handle: [{ handler: "static_response", body: "foreign" }] }] };
  // Its admin section does not enforce the origin (as a Caddy configured before this version): the
  // worker's first load turns that on.
  const res = await caddy.admin("/load", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ admin: { listen: new URL(caddy.adminUrl).host }, apps: { http: { servers: { foreign } } } }),
  });
  expect(res.status).toBe(200);
  await createApp({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "shop" } });
  worker = await s.startWorker({
    ingress: { caddyAdmin: caddy.adminUrl, httpPort: ingressPort, httpsPort: null },
    drainMs: 1000,
    probeIntervalMs: 100,
    metricsPort,
  });
}, 120_000);

afterAll(async () => {
  await s?.teardown();
  await caddy?.stop();
});

const get = getByHost;
/** One GET of `path` with a Host header (and more headers), on a fresh connection. */
const getPath = (port: number, path: string, host: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { ...headers, Host: host }, agent: false, timeout: 5000 }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.on("error", reject);
    req.end();
  });

const viaCaddy = (host: string) => get(ingressPort, host);
const caddyConfig = async () => (await caddy.admin("/config/")).json() as Promise<Record<string, unknown>>;
/** One full ingress pass that starts after everything committed so far. */
const ingressPass = async () => {
  worker.ingress!.enqueue(formatKey(INGRESS_KEY));
  await worker.ingress!.idle();
};
const serves = (host: string, body: string) =>
  waitFor(`${host} to answer ${JSON.stringify(body)} through Caddy`, async () => {
    const r = await viaCaddy(host).catch(() => null);
    return r?.status === 200 && r.body === body ? r : undefined;
  }, { timeoutMs: 30_000, describe: async () => JSON.stringify(await viaCaddy(host).catch((e: unknown) => String(e))) });
const answers = (host: string, status: number, body: RegExp) =>
  waitFor(`${host} to answer ${status} through Caddy`, async () => {
    const r = await viaCaddy(host).catch(() => null);
    return r?.status === status && body.test(r.body) ? r : undefined;
  }, { timeoutMs: 30_000, describe: async () => JSON.stringify(await viaCaddy(host).catch((e: unknown) => String(e))) });
const load = () => startLoad({ url: `http://127.0.0.1:${ingressPort}/`, host: web, concurrency: 8, maxRequests: 400_000, maxMs: 90_000 });
const summary = (r: LoadResult) => JSON.stringify({ total: r.total, failed: r.failed, failures: r.failures, bodies: [...r.bodies] });

async function deploy(name: string, image: string, outcome: "running" | "failed" = "running") {
  await deployService({ ctx: s.ctx, envId: s.ctx.envId, name, input: { image } });
  const st = await s.waitPhase(name, ["running", "failed"]);
  expect(st.phase, st.message).toBe(outcome);
  return st;
}

describe("ingress through Caddy", () => {
  it("a domain serves v1 through Caddy", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "web", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz", domains: [web] } });
    await deploy("web", IMAGES.v1.tag);
    await serves(web, "v1\n");
    await ingressPass();
    expect((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "web" })).ingress).toEqual({ domains: [web], live: true, message: "" });
  });

  it("Caddy's admin API refuses a web page's origin (and no origin at all); the product's own requests work", async () => {
    await ingressPass();
    const before = await caddyConfig();
    expect(before.admin).toEqual(caddyAdminConfig(caddy.adminUrl));
    const evil = { Origin: "http://evil.example" };
    expect((await fetch(`${caddy.adminUrl}/config/`, { headers: evil })).status).toBe(403);
    expect((await fetch(`${caddy.adminUrl}/config/`)).status).toBe(403);
    // A "simple" cross-site POST (what a page can send without a preflight) changes nothing.
    const post = await fetch(`${caddy.adminUrl}/load`, { method: "POST", headers: { ...evil, "Content-Type": "application/json" }, body: JSON.stringify({ apps: {} }) });
    expect(post.status).toBe(403);
    const del = await fetch(`${caddy.adminUrl}/config/apps`, { method: "DELETE", headers: evil });
    expect(del.status).toBe(403);
    expect(await caddyConfig()).toEqual(before);
    await serves(web, "v1\n");
  });

  it("v2, v1, v2 under load: zero failed requests, the responses switch, Caddy's config never changes", async () => {
    const before = await caddyConfig();
    const loadsBefore = caddy.loads();
    const l = load();
    try {
      await l.successes(300);
      for (const img of [IMAGES.v2, IMAGES.v1, IMAGES.v2]) {
        await deploy("web", img.tag);
        await l.successes(300); // and the new body is what Caddy serves now
        expect(l.result.lastBody).toBe(img.body);
      }
      // A Deploy that changes nothing adopts the running container: no cutover.
      const noop = await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: {} });
      noopReleaseId = noop.id;
      await s.waitPhase("web", ["running"]);
      await l.successes(300);
    } finally {
      await l.stop();
    }
    const r = l.result;
    expect(r.failed, summary(r)).toBe(0);
    expect(r.hitBound, summary(r)).toBe(false);
    expect(r.bodies.get("v1\n")).toBeGreaterThan(0);
    expect(r.bodies.get("v2\n")).toBeGreaterThan(0);
    expect([...r.bodies.keys()].sort()).toEqual(["v1\n", "v2\n"]);
    expect(r.lastBody).toBe("v2\n");
    expect(await caddyConfig()).toEqual(before);
    expect(caddy.loads()).toBe(loadsBefore);
    const [latest] = await listReleases({ ctx: s.ctx, envId: s.ctx.envId, name: "web" });
    expect(latest).toMatchObject({ id: noopReleaseId, outcome: "succeeded" });
  });

  it("a never-ready v3 leaves v2 serving with zero failed requests", async () => {
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: { readyBudgetSeconds: 3 } });
    const before = await caddyConfig();
    const l = load();
    let st;
    try {
      await l.successes(300);
      st = await deploy("web", IMAGES.never.tag, "failed");
      await l.successes(300);
    } finally {
      await l.stop();
    }
    expect(st.message).toMatch(/not ready within 3s/);
    expect(l.result.failed, summary(l.result)).toBe(0);
    expect([...l.result.bodies.keys()]).toEqual(["v2\n"]);
    expect(await caddyConfig()).toEqual(before);
  });
});

describe("the ingress controller", () => {
  it("never reloads Caddy for a domain change: domains added, removed, moved all change only the data plane's answers", async () => {
    const base = caddy.loads();
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "web", input: { env: { GREETING: "hi" } } });
    await worker.resync();
    await ingressPass();
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "api", app: "shop", image: IMAGES.v1.tag, port: 8080, healthPath: "/healthz" } });
    await deploy("api", IMAGES.v1.tag);

    // Added.
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: [apiDomain] } });
    await serves(apiDomain, "v1\n");
    // Removed: the data plane's own page says no service has it.
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: [] } });
    await answers(apiDomain, 404, /no service has this domain/);
    // Moved to another service, in one change (straight in the database: the API edits one service at a time).
    await s.db.transaction(async (tx) => {
      await tx.update(service).set({ domains: [apiDomain] }).where(eq(service.name, "web"));
      await tx.update(service).set({ domains: [web] }).where(eq(service.name, "api"));
      await notifyDesired(tx, serviceKey(await idOf("api")));
    });
    await serves(web, "v1\n");
    await serves(apiDomain, "v2\n");
    // And back.
    await s.db.transaction(async (tx) => {
      await tx.update(service).set({ domains: [web] }).where(eq(service.name, "web"));
      await tx.update(service).set({ domains: [] }).where(eq(service.name, "api"));
      await notifyDesired(tx, serviceKey(await idOf("web")));
    });
    await serves(web, "v2\n");
    await ingressPass();
    expect(caddy.loads()).toBe(base);
  });

  it("keep-alive load on one domain while three others are added and removed 20 times: zero failed requests", async () => {
    const others = ["b", "c", "d"].map((x) => `${x}-${s.shortName}.localhost`);
    const base = caddy.loads();
    const l = load();
    try {
      await l.successes(200);
      for (let i = 0; i < 20; i++) {
        await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: others } });
        await serves(others[i % 3]!, "v1\n");
        await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: [] } });
        await answers(others[i % 3]!, 404, /no service/);
      }
      await l.successes(200);
    } finally {
      await l.stop();
    }
    expect(l.result.failed, summary(l.result)).toBe(0);
    expect([...l.result.bodies.keys()]).toEqual(["v2\n"]);
    expect(caddy.loads()).toBe(base);
  });

  it("leaves a server it did not create alone", async () => {
    const cfg = (await caddyConfig()) as { apps: { http: { servers: Record<string, unknown> } } };
    expect(cfg.apps.http.servers.foreign).toEqual(foreign);
    expect(Object.keys(cfg.apps.http.servers).sort()).toEqual(["foreign", `${s.shortName}-http`]);
    expect(await get(foreignPort, "anything")).toEqual({ status: 200, body: "foreign" });
  });

  it("a domain is one domain whatever its case, and a service without a ready container answers 503 from the data plane", async () => {
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "bad", app: "shop", image: IMAGES.v1.tag, port: 8080 } });
    const dup = `dup-${s.shortName}.localhost`;
    await s.db.update(service).set({ domains: [dup.toUpperCase()] }).where(eq(service.name, "bad"));
    await notifyDesired(s.db, serviceKey(await idOf("bad")));
    await ingressPass();
    // bad is not deployed: its domain is known, nothing serves it.
    await answers(dup, 503, /no ready container/);
    await deploy("bad", IMAGES.v1.tag);
    await serves(dup, "v1\n");
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "bad", input: { domains: [] } });
  });

  it("the data plane's health and TLS `ask` answer a local process, never a request Caddy forwards, whatever its Host", async () => {
    const direct = (path: string, host: string, port = s.dataPlanePort) => getPath(port, path, host);
    expect((await direct("/healthz", "localhost")).body).toContain('"pid"');
    // Caddy's `ask` is answered (no for a local domain: it never gets a certificate).
    expect(await direct(`/ask?domain=${web}`, "127.0.0.1")).toEqual({ status: 404, body: "unknown domain\n" });
    for (const host of ["localhost", "127.0.0.1", `127.0.0.1:${s.dataPlanePort}`, "nothing.example"]) {
      const health = await getPath(ingressPort, "/healthz", host);
      expect(health.body).not.toContain('"pid"');
      expect(health.status).not.toBe(200);
      const ask = await getPath(ingressPort, `/ask?domain=${web}`, host);
      expect(ask.body).toMatch(/no service has this domain/); // the fallback page, not the `ask`
    }
    // A client's own mark or forwarding headers do not make it local either (Caddy replaces the mark, appends the rest).
    const spoofed = await getPath(ingressPort, "/healthz", "localhost", { "X-Levelrail-Ingress": "0", "X-Forwarded-For": "127.0.0.1" });
    expect(spoofed.body).not.toContain('"pid"');
  });

  it("a domain a second service claims stays with the service that routes it", async () => {
    // The API refuses it (409 naming domains); a write that slips past (a race) is settled by the controller.
    await expect(patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: [web, apiDomain] } })).rejects.toMatchObject({ code: "conflict", field: "domains" });
    await s.db.update(service).set({ domains: [web, apiDomain] }).where(eq(service.name, "api"));
    await notifyDesired(s.db, serviceKey(await idOf("api")));
    await ingressPass();
    await serves(apiDomain, "v1\n"); // api's other domain went live
    const st = await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "api" });
    expect(st.ingress).toEqual({ domains: [web, apiDomain], live: false, message: `domain ${web} is already routed to service web; remove it from one of them` });
    expect((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "web" })).ingress?.live).toBe(true);
    for (let i = 0; i < 20; i++) expect(await viaCaddy(web)).toEqual({ status: 200, body: "v2\n" });
    await patchService({ ctx: s.ctx, envId: s.ctx.envId, name: "api", input: { domains: [apiDomain] } });
    await waitFor("api's route to be live", async () => ((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "api" })).ingress?.live ? true : undefined));
  });

  it("re-applies the routes after Caddy restarts with an empty config", async () => {
    await caddy.restart(); // admin-only config: our routes and the foreign server are gone
    await serves(web, "v2\n");
    await serves(apiDomain, "v1\n");
    expect((await caddyConfig()).admin).toEqual(caddyAdminConfig(caddy.adminUrl));
    expect((await fetch(`${caddy.adminUrl}/config/`, { headers: { Origin: "http://evil.example" } })).status).toBe(403);
  });
});

describe("deploy metrics", () => {
  it("one sample per real cutover, failed deploys counted, Prometheus metrics served", async () => {
    const m = await deployMetrics({ ctx: s.ctx, input: {} });
    const samples = m.samples ?? [];
    const of = (svc: string, outcome: string) => samples.filter((x) => x.service === svc && x.outcome === outcome);
    // web: v1, v2, v1, v2 cut over; the no-op Deploy did not; v3 failed. api and bad: one cutover each.
    expect(of("web", "succeeded")).toHaveLength(4);
    expect(of("web", "failed")).toHaveLength(1);
    expect(of("api", "succeeded")).toHaveLength(1);
    expect(of("bad", "succeeded")).toHaveLength(1);
    expect(samples).toHaveLength(7);
    expect(new Set(samples.map((x) => x.releaseId)).size).toBe(7);
    expect(samples.map((x) => x.releaseId)).not.toContain(noopReleaseId);
    expect(m.fleet.reduce((n, d) => n + d.deploys, 0)).toBe(6);
    expect(m.fleet.reduce((n, d) => n + d.failed, 0)).toBe(1);
    for (const x of samples) expect(x.durationMs).toBeGreaterThan(0);
    expect(m.servicesTotal).toBe(3);
    // The Deploys page's ask: no samples, only the most deployed service; the fleet's days the same.
    const top = await deployMetrics({ ctx: s.ctx, input: { samples: "false", top: "1" } });
    expect(top).not.toHaveProperty("samples");
    expect(top.fleet).toEqual(m.fleet);
    expect(top.servicesTotal).toBe(3);
    expect(top.services.map((x) => x.service)).toEqual(["web"]);
    expect(top.services[0]!.days.reduce((n, d) => n + d.deploys + d.failed, 0)).toBe(5);
    await expect(deployMetrics({ ctx: s.ctx, input: { top: "0" } })).rejects.toMatchObject({ code: "invalid_input", field: "top" });
    await expect(deployMetrics({ ctx: s.ctx, input: { samples: "no" } })).rejects.toMatchObject({ code: "invalid_input", field: "samples" });

    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/^levelrail_reconciles_total\{controller="application",result="ok"\} \d+/m);
    expect(text).toMatch(/^levelrail_reconciles_total\{controller="ingress",result="ok"\} \d+/m);
    expect(text).toMatch(/^levelrail_deploy_duration_seconds_bucket\{le="\+Inf",outcome="succeeded"\} 6$/m);
    expect(text).toMatch(/^levelrail_deploy_duration_seconds_count\{outcome="succeeded"\} 6$/m);
    expect(text).toMatch(/^levelrail_deploy_duration_seconds_count\{outcome="failed"\} 1$/m);
    expect(text).toMatch(/^levelrail_queue_depth\{controller="ingress"\} \d+/m);
  });
});

// Last: its failed deploy must not change the deploy metrics counted above.
describe("routes follow readiness", () => {
  it("a domain routes only to a ready container: 503 while a never-ready first deploy probes and after it fails; 404 once its service is deleted", async () => {
    const slow = `slow-${s.shortName}.localhost`;
    await createService({ ctx: s.ctx, envId: s.ctx.envId, input: { name: "slow", app: "shop", image: IMAGES.never.tag, port: 8080, healthPath: "/healthz", readyBudgetSeconds: 15, domains: [slow] } });
    await deployService({ ctx: s.ctx, envId: s.ctx.envId, name: "slow", input: {} });
    await waitFor("slow to be probing", async () => ((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "slow" })).step === "probing" ? true : undefined));
    await answers(slow, 503, /no ready container/);
    expect((await getStatus({ ctx: s.ctx, envId: s.ctx.envId, name: "slow" })).phase).toBe("deploying"); // still probing its running container
    expect((await s.waitPhase("slow", ["failed", "running"])).phase).toBe("failed");
    expect(await viaCaddy(slow)).toEqual({ status: 503, body: expect.stringMatching(/no ready container/) });
    await deleteService({ ctx: s.ctx, envId: s.ctx.envId, name: "slow" });
    await answers(slow, 404, /no service has this domain/);
  });
});
