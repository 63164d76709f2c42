import { meshName } from "@levelrail/spec/naming";

/** One service's domains, as the ingress controller sees them. */
export interface ServiceRoute {
  serviceId: string;
  service: string;
  app: string;
  port: number;
  domains: string[];
}

export interface IngressSettings {
  shortName: string;
  httpPort: number;
  /** Null: no HTTPS server (plain HTTP only). */
  httpsPort: number | null;
  /** Where Caddy asks the mesh DNS. */
  meshDns: string;
  /** Domains served on plain HTTP only, never given a certificate (e.g. `*.localhost`). */
  plainHttp: (domain: string) => boolean;
}

export const routeId = (shortName: string, service: string) => `${shortName}-route-${service}`;
export const serverNames = (shortName: string) => ({ http: `${shortName}-http`, https: `${shortName}-https` });

type Json = Record<string, unknown>;

/** A route: the service's domains → its mesh name; Caddy re-resolves every 100 ms, so a deploy never changes this config. */
function route(s: IngressSettings, r: ServiceRoute, domains: string[]): Json {
  return {
    "@id": routeId(s.shortName, r.service),
    match: [{ host: domains }],
    handle: [
      {
        handler: "reverse_proxy",
        dynamic_upstreams: {
          source: "a",
          name: meshName(s.shortName, r.app, r.service),
          port: String(r.port),
          refresh: "100ms",
          resolver: { addresses: [`udp/${s.meshDns}`] },
        },
        // A dial that fails during a switch is retried on the fresh answer instead of failing the request.
        load_balancing: { try_duration: "2s", try_interval: "100ms" },
      },
    ],
    terminal: true,
  };
}

/** Pure: the complete set of servers the product owns in Caddy's config, keyed by server name. */
export function desiredServers(s: IngressSettings, routes: ServiceRoute[]): Record<string, Json> {
  const sorted = [...routes].filter((r) => r.domains.length > 0).sort((a, b) => a.service.localeCompare(b.service));
  const names = serverNames(s.shortName);
  const servers: Record<string, Json> = {
    [names.http]: {
      listen: [`:${s.httpPort}`],
      automatic_https: { disable: true },
      routes: sorted.map((r) => route(s, r, [...r.domains].sort())),
    },
  };
  if (s.httpsPort !== null) {
    const tls = sorted
      .map((r) => ({ r, domains: r.domains.filter((d) => !s.plainHttp(d)).sort() }))
      .filter((x) => x.domains.length > 0);
    if (tls.length > 0) {
      servers[names.https] = {
        listen: [`:${s.httpsPort}`],
        automatic_https: { disable_redirects: true },
        routes: tls.map((x) => route(s, x.r, x.domains)),
      };
    }
  }
  return servers;
}

/** A domain a service claims but does not get: another service routes it. */
export interface DomainConflict {
  serviceId: string;
  domain: string;
  /** The service that keeps it. */
  owner: string;
}

/**
 * Pure: every domain goes to exactly one service. Caddy would accept two routes
 * matching one host and send everything to the first, so a second claimant could
 * silently take a working domain over. The service that routes it now keeps it
 * (`routedNow`, read from Caddy's running config); else the first claimant in
 * `routes` (the store lists the oldest service first). The rest are conflicts.
 */
export function assignDomains(routes: ServiceRoute[], routedNow: Map<string, string>): { routes: ServiceRoute[]; conflicts: DomainConflict[] } {
  const claimants = new Map<string, ServiceRoute[]>();
  for (const r of routes) {
    for (const d of new Set(r.domains.map((x) => x.toLowerCase()))) claimants.set(d, [...(claimants.get(d) ?? []), r]);
  }
  const owner = new Map<string, string>(); // domain → service
  for (const [d, rs] of claimants) owner.set(d, (rs.find((r) => r.service === routedNow.get(d)) ?? rs[0]!).service);
  const conflicts: DomainConflict[] = [];
  const assigned = routes.map((r) => {
    const lost = r.domains.filter((d) => owner.get(d.toLowerCase()) !== r.service);
    for (const d of lost) conflicts.push({ serviceId: r.serviceId, domain: d, owner: owner.get(d.toLowerCase())! });
    return lost.length ? { ...r, domains: r.domains.filter((d) => !lost.includes(d)) } : r;
  });
  return { routes: assigned, conflicts };
}

/** Local names that never get a certificate. */
export const isLocalDomain = (d: string) => d === "localhost" || d.endsWith(".localhost") || d.endsWith(".local") || d.endsWith(".internal");
