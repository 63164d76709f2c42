import { describe, expect, it } from "vitest";
import { caddyAdminConfig } from "@levelrail/spec/caddy-admin";
import { type CaddyAdmin, CaddyRejected } from "./caddy";
import { type IngressSettings, type ServiceRoute, assignDomains, desiredServers, desiredTlsAutomation } from "./desired";
import { type DomainPort, type IngressStore, ingressController } from "./reconcile";

const settings: IngressSettings = { shortName: "lr", httpPort: 8080, httpsPort: null, dataPlane: "127.0.0.1:10053" };
const route = (service: string, domains: string[]): ServiceRoute => ({ serviceId: `id-${service}`, orgId: "org-1", service, app: "shop", port: 8080, domains });

/** Caddy's admin API as the controller sees it: the running config, and every load (rejected when `reject` says so). */
class FakeCaddy implements CaddyAdmin {
  loads: Record<string, unknown>[] = [];
  readonly adminConfig = caddyAdminConfig("http://127.0.0.1:2019");
  constructor(
    public config: Record<string, unknown> | null,
    private readonly reject: (c: Record<string, unknown>) => string | null = () => null,
  ) {}
  async getConfig() {
    return this.config === null ? null : structuredClone(this.config);
  }
  async load(c: Record<string, unknown>) {
    this.loads.push(c);
    const why = this.reject(c);
    if (why) throw new CaddyRejected(why);
    this.config = structuredClone(c);
  }
}

class FakeStore implements IngressStore {
  status = new Map<string, { live: boolean; message: string }>();
  proven = new Set<string>();
  constructor(public routes: ServiceRoute[]) {}
  async listRoutes() {
    return this.routes;
  }
  async provenDomains() {
    return this.proven;
  }
  async setIngressStatus(ids: string[], live: boolean, message: string) {
    for (const id of ids) this.status.set(id, { live, message });
  }
}

/** The data plane's domain map, kept in memory. */
class FakeDataPlane implements DomainPort {
  map: Record<string, string> = {};
  writes = 0;
  domains() {
    return this.map;
  }
  async setDomains(d: Record<string, string>) {
    this.map = d;
    this.writes++;
  }
}

const setup = (routes: ServiceRoute[], caddy: FakeCaddy, s: IngressSettings = settings) => {
  const store = new FakeStore(routes);
  const dataPlane = new FakeDataPlane();
  const ctl = ingressController({ settings: s, store, caddy, dataPlane, recheckMs: 10_000, baseDomains: ["apps.example.net"] });
  return { store, dataPlane, pass: () => ctl.reconcile("ingress") };
};

const servers = (c: FakeCaddy) => (((c.config?.apps as Record<string, unknown>)?.http as Record<string, unknown>)?.servers ?? {}) as Record<string, unknown>;

describe("ingress controller", () => {
  it("loads one constant catch-all config once; domain changes go to the data plane only; foreign servers stay", async () => {
    const foreign = { listen: [":9999"], routes: [{ handle: [{ handler: "static_response", body: "hi" }] }] };
    const caddy = new FakeCaddy({ admin: { listen: "127.0.0.1:2019" }, apps: { http: { servers: { foreign } } } });
    const { store, dataPlane, pass } = setup([route("web", ["web.localhost"]), route("api", [])], caddy);
    expect(await pass()).toEqual({ requeueAfterMs: 10_000 });
    expect(caddy.loads).toHaveLength(1);
    expect(servers(caddy).foreign).toEqual(foreign);
    expect(servers(caddy)["lr-http"]).toEqual(desiredServers(settings)["lr-http"]);
    // The admin endpoint now enforces its origin (it did not before this load).
    expect(caddy.config?.admin).toEqual({ listen: "127.0.0.1:2019", origins: ["127.0.0.1:2019"], enforce_origin: true });
    expect(dataPlane.map).toEqual({ "web.localhost": "id-web" });
    expect(store.status.get("id-web")).toEqual({ live: true, message: "" });

    store.routes = [route("web", []), route("api", ["web.localhost", "API.localhost"])]; // moved, and one added
    await pass();
    expect(dataPlane.map).toEqual({ "web.localhost": "id-api", "api.localhost": "id-api" });
    expect(caddy.loads).toHaveLength(1);
  });

  it("turns on the admin endpoint's origin check once, keeping where it listens; a config that has it is not reloaded", async () => {
    const caddy = new FakeCaddy({ admin: { listen: "0.0.0.0:2019", config: { persist: false } } });
    const { pass } = setup([], caddy);
    await pass();
    expect(caddy.config?.admin).toEqual({ listen: "0.0.0.0:2019", config: { persist: false }, origins: ["127.0.0.1:2019"], enforce_origin: true });
    await pass();
    expect(caddy.loads).toHaveLength(1);
    // Caddy running with no admin section (its default): our address.
    const bare = new FakeCaddy({});
    await setup([], bare).pass();
    expect(bare.config?.admin).toEqual(caddyAdminConfig("http://127.0.0.1:2019"));
  });

  it("the catch-all looks the upstream up per request Host, through both data plane replicas over TCP (SRV, then the container's own name)", () => {
    const http = desiredServers(settings)["lr-http"] as { routes: { handle: Record<string, unknown>[] }[] };
    expect(http.routes).toHaveLength(1);
    expect(http.routes[0]!.handle[0]).toMatchObject({
      handler: "reverse_proxy",
      dynamic_upstreams: { source: "srv", name: "{http.request.host}._route.lr.internal", resolver: { addresses: ["tcp/127.0.0.1:10053", "tcp/127.0.0.1:10054"] } },
      transport: { protocol: "http", resolver: { addresses: ["tcp/127.0.0.1:10053", "tcp/127.0.0.1:10054"] } },
    });
  });

  it("with HTTPS on, an HTTPS server gets certificates on demand, asked of the data plane", async () => {
    const tls = { ...settings, httpsPort: 8443 };
    expect(Object.keys(desiredServers(tls))).toEqual(["lr-http", "lr-https"]);
    expect(desiredTlsAutomation(tls)).toMatchObject({ on_demand: { ask: "http://127.0.0.1:10053/ask" } });
    const caddy = new FakeCaddy({ apps: { tls: { automation: { policies: [] } } } });
    const { pass } = setup([route("web", ["shop.example.com"])], caddy, tls);
    await pass();
    await pass();
    expect(caddy.loads).toHaveLength(1);
    expect((caddy.config?.apps as { tls: unknown }).tls).toEqual({ automation: desiredTlsAutomation(tls) });
  });

  it("re-applies when Caddy comes back with no config", async () => {
    const caddy = new FakeCaddy(null);
    const { pass } = setup([route("web", ["web.localhost"])], caddy);
    await pass();
    caddy.config = { admin: { listen: "127.0.0.1:2019" } }; // restarted
    await pass();
    expect(caddy.loads).toHaveLength(2);
  });

  it("a rejected config marks the services with domains not live, with Caddy's message, and is retried", async () => {
    const caddy = new FakeCaddy({}, () => "listen tcp :8080: bind: address already in use");
    const { store, pass } = setup([route("web", ["web.localhost"]), route("bare", [])], caddy);
    await expect(pass()).rejects.toThrow(/already in use/);
    expect(store.status.get("id-web")).toEqual({ live: false, message: "listen tcp :8080: bind: address already in use" });
    expect(store.status.has("id-bare")).toBe(false);
  });

  it("a domain claimed twice stays with the service that routes it and is reported on the other", async () => {
    const caddy = new FakeCaddy({});
    const { store, dataPlane, pass } = setup([route("web", ["shop.localhost"]), route("admin", [])], caddy);
    await pass();
    store.routes = [route("admin", ["shop.localhost", "admin.localhost"]), route("web", ["shop.localhost"])];
    await pass();
    expect(dataPlane.map).toEqual({ "shop.localhost": "id-web", "admin.localhost": "id-admin" });
    expect(store.status.get("id-web")).toEqual({ live: true, message: "" });
    expect(store.status.get("id-admin")).toEqual({ live: false, message: "domain shop.localhost is already routed to service web; remove it from one of them" });
  });
});

describe("assignDomains", () => {
  it("gives a new domain claimed twice to the first claimant (the oldest service)", () => {
    const { routes, conflicts } = assignDomains([route("b", ["x.localhost"]), route("a", ["X.localhost", "a.localhost"])], new Map());
    expect(routes.map((r) => r.domains)).toEqual([["x.localhost"], ["a.localhost"]]);
    expect(conflicts).toEqual([{ serviceId: "id-a", domain: "X.localhost", owner: "b" }]);
  });

  it("routes a domain that needs a proof only once its organization has proven it; base domains and *.localhost need none", async () => {
    const caddy = new FakeCaddy(null);
    const { store, dataPlane, pass } = setup([route("web", ["shop.example.com", "web.localhost"]), route("api", ["api.apps.example.net"]), route("www", ["www.example.org"])], caddy);
    await pass();
    expect(dataPlane.map).toEqual({ "web.localhost": "id-web", "api.apps.example.net": "id-api" });
    expect(store.status.get("id-web")).toEqual({ live: false, message: expect.stringContaining("_levelrail-challenge.shop.example.com") });
    expect(store.status.get("id-www")?.live).toBe(false);
    expect(store.status.get("id-api")).toEqual({ live: true, message: "" });
    // Another organization's proof does not count.
    store.proven = new Set(["org-2 shop.example.com", "org-1 www.example.org"]);
    await pass();
    expect(dataPlane.map).toEqual({ "web.localhost": "id-web", "api.apps.example.net": "id-api", "www.example.org": "id-www" });
    expect(store.status.get("id-www")).toEqual({ live: true, message: "" });
    store.proven.add("org-1 shop.example.com");
    await pass();
    expect(dataPlane.map["shop.example.com"]).toBe("id-web");
    expect(store.status.get("id-web")).toEqual({ live: true, message: "" });
    // The proof lapses (grace over): the domain leaves the map.
    store.proven.delete("org-1 shop.example.com");
    await pass();
    expect(dataPlane.map["shop.example.com"]).toBeUndefined();
  });
});
