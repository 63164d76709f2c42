import { canonicalJson } from "@levelrail/spec/env";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import type { CaddyAdmin } from "./caddy";
import { CaddyRejected } from "./caddy";
import { type IngressSettings, type ServiceRoute, desiredServers, serverNames } from "./desired";

export const INGRESS_KEY = "ingress";

export interface IngressStore {
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

/**
 * Whole-fleet: computes every route the product owns and applies them only
 * when they differ from Caddy's running config. Servers it did not create
 * are left exactly as they are.
 */
export function ingressController(o: IngressControllerOptions): Controller {
  return {
    name: "ingress",
    async reconcile(): Promise<ReconcileResult> {
      const routes = await o.store.listRoutes();
      const desired = desiredServers(o.settings, routes);
      const config = (await o.caddy.getConfig()) ?? {};
      const apps = (config.apps ?? {}) as Record<string, unknown>;
      const http = (apps.http ?? {}) as Record<string, unknown>;
      const servers = { ...((http.servers ?? {}) as Record<string, unknown>) };
      const ours = Object.values(serverNames(o.settings.shortName));
      const current = Object.fromEntries(ours.filter((n) => servers[n] !== undefined).map((n) => [n, servers[n]]));
      const withDomains = routes.filter((r) => r.domains.length > 0).map((r) => r.serviceId);

      if (canonicalJson(current) !== canonicalJson(desired)) {
        for (const n of ours) delete servers[n];
        const next = { ...config, apps: { ...apps, http: { ...http, servers: { ...servers, ...desired } } } };
        try {
          await o.caddy.load(next);
        } catch (err) {
          if (err instanceof CaddyRejected) {
            await o.store.setIngressStatus(withDomains, false, err.message);
          }
          throw err; // retried with backoff; Caddy keeps serving the routes that worked
        }
      }
      await o.store.setIngressStatus(withDomains, true, "");
      return { requeueAfterMs: o.recheckMs };
    },
  };
}
