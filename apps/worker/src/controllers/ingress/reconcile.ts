import { canonicalJson } from "@levelrail/spec/env";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import type { CaddyAdmin } from "./caddy";
import { CaddyRejected } from "./caddy";
import { type IngressSettings, type ServiceRoute, assignDomains, desiredServers, routeId, serverNames } from "./desired";

export interface IngressStore {
  /** Every service with its domains, the oldest service first. */
  listRoutes(): Promise<ServiceRoute[]>;
  /** What the operator sees per service: is its route in Caddy, and if not, why. */
  setIngressStatus(serviceIds: string[], live: boolean, message: string): Promise<void>;
}

export interface IngressControllerOptions {
  settings: IngressSettings;
  store: IngressStore;
  caddy: CaddyAdmin;
  /** How often Caddy's config is checked again (it may have restarted with none). */
  recheckMs: number;
}

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const routesOf = (server: unknown): Json[] => (Array.isArray(asObject(server).routes) ? (asObject(server).routes as unknown[]).map(asObject) : []);

/**
 * Whole-fleet: computes every route the product owns and applies them only
 * when they differ from Caddy's running config. Servers it did not create
 * are left exactly as they are.
 */
export function ingressController(o: IngressControllerOptions): Controller {
  const ours = Object.values(serverNames(o.settings.shortName));
  const prefix = routeId(o.settings.shortName, "");

  return {
    name: "ingress",
    async reconcile(): Promise<ReconcileResult> {
      const all = await o.store.listRoutes();
      const config = (await o.caddy.getConfig()) ?? {};
      const apps = asObject(config.apps);
      const http = asObject(apps.http);
      const servers = { ...asObject(http.servers) };
      const current = Object.fromEntries(ours.filter((n) => servers[n] !== undefined).map((n) => [n, servers[n]]));

      // Which service routes each domain now: it keeps the domain if another claims it too.
      const routedNow = new Map<string, string>();
      for (const server of Object.values(current)) {
        for (const r of routesOf(server)) {
          const id = typeof r["@id"] === "string" ? r["@id"] : "";
          const hosts = asObject((r.match as unknown[] | undefined)?.[0]).host;
          if (!id.startsWith(prefix) || !Array.isArray(hosts)) continue;
          for (const h of hosts) if (typeof h === "string" && !routedNow.has(h.toLowerCase())) routedNow.set(h.toLowerCase(), id.slice(prefix.length));
        }
      }
      const { routes, conflicts } = assignDomains(all, routedNow);
      const desired = desiredServers(o.settings, routes);

      const conflicted = new Map<string, string>();
      for (const c of conflicts) conflicted.set(c.serviceId, [conflicted.get(c.serviceId), `${c.domain} is already routed to service ${c.owner}`].filter(Boolean).join("; "));
      const withDomains = routes.filter((r) => r.domains.length > 0 && !conflicted.has(r.serviceId));
      const report = async (live: ServiceRoute[], failed: ServiceRoute[], message: string) => {
        await o.store.setIngressStatus(live.map((r) => r.serviceId), true, "");
        await o.store.setIngressStatus(failed.map((r) => r.serviceId), false, message);
        for (const [id, why] of conflicted) await o.store.setIngressStatus([id], false, `domain ${why}; remove it from one of them`);
      };

      if (canonicalJson(current) !== canonicalJson(desired)) {
        for (const n of ours) delete servers[n];
        const next = { ...config, apps: { ...apps, http: { ...http, servers: { ...servers, ...desired } } } };
        try {
          await o.caddy.load(next);
        } catch (err) {
          if (err instanceof CaddyRejected) {
            // Caddy keeps its running config: a service whose routes are in it unchanged is still live.
            const same = (r: ServiceRoute) => {
              const id = routeId(o.settings.shortName, r.service);
              const pick = (s: Json) => canonicalJson(ours.map((n) => routesOf(s[n]).filter((x) => x["@id"] === id)));
              return pick(current) === pick(desired);
            };
            await report(withDomains.filter(same), withDomains.filter((r) => !same(r)), err.message);
          }
          throw err; // retried with backoff; Caddy keeps serving the routes that worked
        }
      }
      await report(withDomains, [], "");
      return { requeueAfterMs: o.recheckMs };
    },
  };
}
