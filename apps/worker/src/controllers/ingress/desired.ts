import { challengeName, isExemptDomain } from "@levelrail/spec/domains";
import { INGRESS_HEADER } from "@levelrail/spec/dataplane";
import { meshZone } from "@levelrail/spec/naming";

/** One service's domains, as the ingress controller sees them. */
export interface ServiceRoute {
  serviceId: string;
  /** The service's organization: a domain that needs a proof routes only once this organization has proven it. */
  orgId: string;
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
  /**
   * The data plane's replica 0 on loopback (`127.0.0.1:<port>`): DNS, and the TLS `ask` over HTTP
   * on the same port. Replica 1 listens on the next port.
   */
  dataPlane: string;
  /**
   * On a swarm (docs/operating/nodes-and-swarm.md): a task whose node went away (or whose engine restarts) leaves its
   * overlay address silent, so a dial there hangs instead of being refused, and the state may name
   * it until the manager is back to say otherwise. Dials give up after 1 s and are retried for 4 s,
   * by when the data plane's own probes (`TaskLiveness`) have left the silent task out of its
   * answers. (Caddy's passive health checks do not cover upstreams looked up per request.)
   */
  swarm?: boolean;
}

export const serverNames = (shortName: string) => ({ http: `${shortName}-http`, https: `${shortName}-https` });
export const catchAllId = (shortName: string) => `${shortName}-ingress`;

type Json = Record<string, unknown>;

/**
 * Both mesh DNS replicas, over TCP. Caddy's resolver picks one at random for every try of every
 * lookup; a killed (or restarting) replica refuses or resets the connection at once, so the next
 * try goes on without waiting out a timeout (over UDP a query to it would wait the whole timeout).
 */
export function resolverAddresses(dataPlane: string): string[] {
  const at = dataPlane.lastIndexOf(":");
  const host = dataPlane.slice(0, at);
  const port = Number(dataPlane.slice(at + 1));
  return [`tcp/${host}:${port}`, `tcp/${host}:${port + 1}`];
}

/**
 * The one route every server has: the upstream of a request is looked up per request, by its
 * Host, in the data plane (an SRV record naming the active container and its port; Caddy dials
 * the container's own name through the same resolver). Adding, moving or removing a domain, and
 * every deploy, changes only the data plane's answers, never Caddy's config: a config change
 * would close every idle keep-alive connection of every app. Every forwarded request is marked
 * (`INGRESS_HEADER`, replacing a client's): a domain with no ready container is forwarded to the
 * data plane's fallback page on loopback, and the mark is how the data plane knows not to serve
 * it its health or TLS `ask`, whatever Host the client sent.
 */
function catchAll(s: IngressSettings): Json {
  const resolver = { addresses: resolverAddresses(s.dataPlane) };
  return {
    "@id": catchAllId(s.shortName),
    handle: [
      {
        handler: "reverse_proxy",
        dynamic_upstreams: { source: "srv", name: `{http.request.host}._route.${meshZone(s.shortName)}`, refresh: "100ms", resolver },
        transport: { protocol: "http", resolver, ...(s.swarm ? { dial_timeout: "1s" } : {}) },
        headers: { request: { set: { [INGRESS_HEADER]: ["1"] } } },
        // A dial that fails during a switch is retried on the fresh answer instead of failing the request.
        load_balancing: { try_duration: s.swarm ? "4s" : "2s", try_interval: "100ms" },
      },
    ],
    terminal: true,
  };
}

/** Pure: the complete set of servers the product owns in Caddy's config, keyed by server name. Constant for a given setting. */
export function desiredServers(s: IngressSettings): Record<string, Json> {
  const names = serverNames(s.shortName);
  const servers: Record<string, Json> = {
    [names.http]: { listen: [`:${s.httpPort}`], automatic_https: { disable: true }, routes: [catchAll(s)] },
  };
  if (s.httpsPort !== null) {
    // Certificates on demand, for the domains the data plane's `ask` knows (never a local one).
    servers[names.https] = {
      listen: [`:${s.httpsPort}`],
      automatic_https: { disable_redirects: true },
      tls_connection_policies: [{}],
      routes: [catchAll(s)],
    };
  }
  return servers;
}

/** Pure: Caddy's TLS automation for on-demand certificates (null: no HTTPS). */
export function desiredTlsAutomation(s: IngressSettings): Json | null {
  if (s.httpsPort === null) return null;
  return { on_demand: { ask: `http://${s.dataPlane}/ask` }, policies: [{ "@id": `${s.shortName}-on-demand`, on_demand: true }] };
}

/** A domain a service claims but does not get: another service routes it. */
export interface DomainConflict {
  serviceId: string;
  domain: string;
  /** The name of the service that keeps it. */
  owner: string;
}

/**
 * Pure: every domain goes to exactly one service. The service that routes it now keeps it
 * (`routedNow`: domain → service id, from the data plane's current map); else the first claimant
 * in `routes` (the store lists the oldest service first). The rest are conflicts.
 */
export function assignDomains(routes: ServiceRoute[], routedNow: Map<string, string>): { routes: ServiceRoute[]; conflicts: DomainConflict[] } {
  const claimants = new Map<string, ServiceRoute[]>();
  for (const r of routes) {
    for (const d of new Set(r.domains.map((x) => x.toLowerCase()))) claimants.set(d, [...(claimants.get(d) ?? []), r]);
  }
  const owner = new Map<string, ServiceRoute>();
  for (const [d, rs] of claimants) owner.set(d, rs.find((r) => r.serviceId === routedNow.get(d)) ?? rs[0]!);
  const conflicts: DomainConflict[] = [];
  const assigned = routes.map((r) => {
    const lost = r.domains.filter((d) => owner.get(d.toLowerCase())?.serviceId !== r.serviceId);
    for (const d of lost) conflicts.push({ serviceId: r.serviceId, domain: d, owner: owner.get(d.toLowerCase())!.service });
    return lost.length ? { ...r, domains: r.domains.filter((d) => !lost.includes(d)) } : r;
  });
  return { routes: assigned, conflicts };
}

/** The domain map the data plane answers from: domain (lower case) → service id. */
export function domainMap(routes: ServiceRoute[]): Record<string, string> {
  const map: Record<string, string> = {};
  for (const r of routes) for (const d of r.domains) map[d.toLowerCase()] = r.serviceId;
  return map;
}

/** A domain a service has that does not route yet: its organization has not proven it owns it. */
export interface UnprovenDomain {
  serviceId: string;
  domain: string;
}

/**
 * Pure: each route keeps only the domains that may route: exempt ones (`*.localhost`, the base
 * domains) and those its organization has proven (`proven`: `<orgId> <domain>`). Until then the
 * data plane does not know the domain: Caddy serves it the fallback page and `ask` says no.
 */
export function provenRoutes(routes: ServiceRoute[], proven: Set<string>, baseDomains: readonly string[]): { routes: ServiceRoute[]; unproven: UnprovenDomain[] } {
  const unproven: UnprovenDomain[] = [];
  const kept = routes.map((r) => {
    const ok = r.domains.filter((d) => isExemptDomain(d, baseDomains) || proven.has(`${r.orgId} ${d.toLowerCase()}`));
    for (const d of r.domains) if (!ok.includes(d)) unproven.push({ serviceId: r.serviceId, domain: d });
    return ok.length === r.domains.length ? r : { ...r, domains: ok };
  });
  return { routes: kept, unproven };
}

/** What the service's ingress status says about its domains waiting for a proof. */
export const unprovenMessage = (domains: string[]) =>
  `waiting for the ownership proof of ${domains.join(", ")} (a TXT record ${domains.map(challengeName).join(", ")} holding the organization's token)`;
