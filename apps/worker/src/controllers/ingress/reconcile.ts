import { canonicalJson } from "@levelrail/spec/env";
import type { Controller, ReconcileResult } from "../../reconcile/controller";
import type { CaddyAdmin } from "./caddy";
import { CaddyRejected } from "./caddy";
import { type IngressSettings, type ServiceRoute, assignDomains, desiredServers, desiredTlsAutomation, domainMap, provenRoutes, serverNames, unprovenMessage } from "./desired";

export interface IngressStore {
  /** Every service with its domains, the oldest service first. */
  listRoutes(): Promise<ServiceRoute[]>;
  /** What the operator sees per service: is its route live, and if not, why. */
  setIngressStatus(serviceIds: string[], live: boolean, message: string): Promise<void>;
  /** Every verified ownership proof, as `<orgId> <domain>`. */
  provenDomains(): Promise<Set<string>>;
}

/** The data plane's domain map (domain → service id): what it routes now, and where the new map goes. */
export interface DomainPort {
  domains(): Record<string, string>;
  setDomains(domains: Record<string, string>): Promise<void>;
}

export interface IngressControllerOptions {
  settings: IngressSettings;
  store: IngressStore;
  caddy: CaddyAdmin;
  dataPlane: DomainPort;
  /** How often Caddy's config is checked again (it may have restarted with none). */
  recheckMs: number;
  /** `LEVELRAIL_BASE_DOMAINS`: their subdomains (and `*.localhost`) route without a proof. */
  baseDomains: readonly string[];
}

type Json = Record<string, unknown>;
const asObject = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});

/**
 * Whole-fleet: every domain goes to one service, and the data plane gets the complete map; Caddy
 * gets one constant catch-all config (written only when it is missing or differs, e.g. after Caddy
 * lost its config), so a domain change never reloads Caddy. Servers it did not create are left
 * exactly as they are.
 */
export function ingressController(o: IngressControllerOptions): Controller {
  const ours = Object.values(serverNames(o.settings.shortName));
  const desired = desiredServers(o.settings);
  const tls = desiredTlsAutomation(o.settings);

  /** Applies our servers (and on-demand TLS) when Caddy's running config differs. */
  const applyCaddy = async () => {
    const config = (await o.caddy.getConfig()) ?? {};
    const apps = asObject(config.apps);
    const http = asObject(apps.http);
    const servers = { ...asObject(http.servers) };
    const current = Object.fromEntries(ours.filter((n) => servers[n] !== undefined).map((n) => [n, servers[n]]));
    const tlsApp = asObject(apps.tls);
    const automation = asObject(tlsApp.automation);
    const tlsSame = tls === null || canonicalJson(automation) === canonicalJson({ ...automation, ...tls });
    // The admin endpoint enforces its origin, whoever started Caddy and with whatever config; where
    // it listens stays as it is (our address when the config names none).
    const want = o.caddy.adminConfig;
    const admin = { ...want, ...asObject(config.admin), origins: want.origins, enforce_origin: want.enforce_origin };
    const adminSame = canonicalJson(asObject(config.admin)) === canonicalJson(admin);
    if (canonicalJson(current) === canonicalJson(desired) && tlsSame && adminSame) return;
    for (const n of ours) delete servers[n];
    const nextApps: Json = { ...apps, http: { ...http, servers: { ...servers, ...desired } } };
    if (tls) nextApps.tls = { ...tlsApp, automation: { ...automation, ...tls } };
    await o.caddy.load({ ...config, admin, apps: nextApps });
  };

  return {
    name: "ingress",
    async reconcile(): Promise<ReconcileResult> {
      const [claimed, proven] = await Promise.all([o.store.listRoutes(), o.store.provenDomains()]);
      const { routes: all, unproven } = provenRoutes(claimed, proven, o.baseDomains);
      const { routes, conflicts } = assignDomains(all, new Map(Object.entries(o.dataPlane.domains())));
      await o.dataPlane.setDomains(domainMap(routes));

      const conflicted = new Map<string, string>();
      for (const c of conflicts) conflicted.set(c.serviceId, [conflicted.get(c.serviceId), `${c.domain} is already routed to service ${c.owner}`].filter(Boolean).join("; "));
      const waiting = new Map<string, string[]>();
      for (const u of unproven) waiting.set(u.serviceId, [...(waiting.get(u.serviceId) ?? []), u.domain]);
      const withDomains = routes.filter((r) => r.domains.length > 0 && !conflicted.has(r.serviceId) && !waiting.has(r.serviceId));
      const report = async (live: boolean, message: string) => {
        await o.store.setIngressStatus(withDomains.map((r) => r.serviceId), live, message);
        for (const [id, why] of conflicted) await o.store.setIngressStatus([id], false, `domain ${why}; remove it from one of them`);
        // Live only when every domain of the service routes; the message names those still waiting.
        for (const [id, domains] of waiting) if (!conflicted.has(id)) await o.store.setIngressStatus([id], false, unprovenMessage(domains));
      };

      try {
        await applyCaddy();
      } catch (err) {
        // Caddy keeps its running config; if that has no route of ours, no domain is live.
        if (err instanceof CaddyRejected) await report(false, err.message);
        throw err; // retried with backoff
      }
      await report(true, "");
      return { requeueAfterMs: o.recheckMs };
    },
  };
}
