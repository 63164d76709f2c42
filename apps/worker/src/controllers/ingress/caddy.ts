import { adminSocketRequest } from "@levelrail/docker/swarm/edge";
import { caddyAdminConfig, caddyAdminOrigin } from "@levelrail/spec/caddy-admin";

/** The few calls the ingress controller makes to Caddy's admin API (loopback only). */
export interface CaddyAdmin {
  /** The admin endpoint's own config as the product runs it (`enforce_origin`): every load keeps it. */
  readonly adminConfig: { listen: string; origins: string[]; enforce_origin?: boolean };
  /** The whole running config (null when Caddy runs with none). */
  getConfig(): Promise<Record<string, unknown> | null>;
  /** Replaces the whole config atomically; Caddy keeps the old one if it rejects the new. */
  load(config: Record<string, unknown>): Promise<void>;
}

export class CaddyRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CaddyRejected";
  }
}

export function caddyAdmin(base: string): CaddyAdmin {
  const url = base.replace(/\/$/, "");
  // Caddy refuses a request without an Origin naming its admin address (enforce_origin).
  const origin = caddyAdminOrigin(url);
  return {
    adminConfig: caddyAdminConfig(url),
    async getConfig() {
      const res = await fetch(`${url}/config/`, { headers: { Origin: origin }, signal: AbortSignal.timeout(5000) });
      if (!res.ok) throw new Error(`Caddy admin API answered ${res.status} to GET /config/`);
      return (await res.json()) as Record<string, unknown> | null;
    },
    async load(config) {
      const res = await fetch(`${url}/load`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: origin },
        body: JSON.stringify(config),
        signal: AbortSignal.timeout(15_000),
      });
      if (res.status === 400) throw new CaddyRejected(`Caddy rejected the ingress config: ${(await res.text()).slice(0, 500)}`);
      if (!res.ok) throw new Error(`Caddy admin API answered ${res.status} to POST /load: ${(await res.text()).slice(0, 300)}`);
    },
  };
}

/**
 * Caddy's admin API on a unix socket (a swarm node's ingress, `@levelrail/docker/swarm/edge`: its
 * network namespace joins app overlays, so no address of it may serve the admin API). `adminConfig`
 * is the endpoint's own (`edgeAdminConfig`), kept on every load.
 */
export function caddyAdminSocket(socketPath: string, adminConfig: CaddyAdmin["adminConfig"]): CaddyAdmin {
  return {
    adminConfig,
    async getConfig() {
      const res = await adminSocketRequest(socketPath, "GET", "/config/", null, 5000);
      if (res.status !== 200) throw new Error(`Caddy admin API answered ${res.status} to GET /config/`);
      return JSON.parse(res.text) as Record<string, unknown> | null;
    },
    async load(config) {
      const res = await adminSocketRequest(socketPath, "POST", "/load", JSON.stringify(config), 15_000);
      if (res.status === 400) throw new CaddyRejected(`Caddy rejected the ingress config: ${res.text.slice(0, 500)}`);
      if (res.status !== 200) throw new Error(`Caddy admin API answered ${res.status} to POST /load: ${res.text.slice(0, 300)}`);
    },
  };
}
