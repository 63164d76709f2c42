import { describe, expect, it } from "vitest";
import { type CaddyAdmin, CaddyRejected } from "./caddy";
import { type IngressSettings, type ServiceRoute, assignDomains } from "./desired";
import { type IngressStore, ingressController } from "./reconcile";

const settings: IngressSettings = { shortName: "lr", httpPort: 8080, httpsPort: null, meshDns: "127.0.0.1:10053", plainHttp: () => true };
const route = (service: string, domains: string[]): ServiceRoute => ({ serviceId: `id-${service}`, service, app: "shop", port: 8080, domains });

/** Caddy's admin API as the controller sees it: the running config, and every load (rejected when `reject` says so). */
class FakeCaddy implements CaddyAdmin {
  loads: Record<string, unknown>[] = [];
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
  constructor(public routes: ServiceRoute[]) {}
  async listRoutes() {
    return this.routes;
  }
  async setIngressStatus(ids: string[], live: boolean, message: string) {
    for (const id of ids) this.status.set(id, { live, message });
  }
}

const setup = (routes: ServiceRoute[], caddy: FakeCaddy) => {
  const store = new FakeStore(routes);
  const ctl = ingressController({ settings, store, caddy, recheckMs: 10_000 });
  return { store, pass: () => ctl.reconcile("ingress") };
};

const servers = (c: FakeCaddy) => (((c.config?.apps as Record<string, unknown>)?.http as Record<string, unknown>)?.servers ?? {}) as Record<string, { routes?: { match: { host: string[] }[] }[] }>;

describe("ingress controller", () => {
  it("applies only when the route set changes, and leaves servers it did not create alone", async () => {
    const foreign = { listen: [":9999"], routes: [{ handle: [{ handler: "static_response", body: "hi" }] }] };
    const caddy = new FakeCaddy({ admin: { listen: "127.0.0.1:2019" }, apps: { http: { servers: { foreign } } } });
    const { store, pass } = setup([route("web", ["web.localhost"]), route("api", [])], caddy);
    expect(await pass()).toEqual({ requeueAfterMs: 10_000 });
    expect(caddy.loads).toHaveLength(1);
    expect(servers(caddy).foreign).toEqual(foreign);
    expect(caddy.config?.admin).toEqual({ listen: "127.0.0.1:2019" });
    expect(store.status.get("id-web")).toEqual({ live: true, message: "" });

    await pass(); // nothing changed: no load
    expect(caddy.loads).toHaveLength(1);
    store.routes = [route("web", []), route("api", ["web.localhost"])]; // moved
    await pass();
    expect(caddy.loads).toHaveLength(2);
    expect(servers(caddy)["lr-http"]?.routes?.map((r) => r.match[0]?.host)).toEqual([["web.localhost"]]);
    expect(servers(caddy).foreign).toEqual(foreign);
  });

  it("re-applies when Caddy comes back with no config", async () => {
    const caddy = new FakeCaddy(null);
    const { pass } = setup([route("web", ["web.localhost"])], caddy);
    await pass();
    caddy.config = { admin: { listen: "127.0.0.1:2019" } }; // restarted
    await pass();
    expect(caddy.loads).toHaveLength(2);
  });

  it("a rejected config marks only the services whose routes changed, with Caddy's message, and is retried", async () => {
    const caddy = new FakeCaddy({}, (c) => (JSON.stringify(c).includes("BAD.localhost") ? "host at index 0 is repeated" : null));
    const { store, pass } = setup([route("web", ["web.localhost"]), route("bad", [])], caddy);
    await pass();
    store.routes = [route("web", ["web.localhost"]), route("bad", ["bad.localhost", "BAD.localhost"])];
    await expect(pass()).rejects.toThrow(/repeated/);
    expect(store.status.get("id-web")).toEqual({ live: true, message: "" });
    expect(store.status.get("id-bad")).toEqual({ live: false, message: "host at index 0 is repeated" });
  });

  it("a domain claimed twice stays with the service that routes it and is reported on the other", async () => {
    const caddy = new FakeCaddy({});
    const { store, pass } = setup([route("web", ["shop.localhost"]), route("admin", [])], caddy);
    await pass();
    // `admin` sorts first, so Caddy would route the domain to it if both routes carried it.
    store.routes = [route("admin", ["shop.localhost", "admin.localhost"]), route("web", ["shop.localhost"])];
    await pass();
    const hosts = servers(caddy)["lr-http"]?.routes?.map((r) => r.match[0]?.host);
    expect(hosts).toEqual([["admin.localhost"], ["shop.localhost"]]);
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
});
