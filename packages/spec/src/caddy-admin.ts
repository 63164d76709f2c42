/**
 * Caddy's admin endpoint as the product runs it. Caddy already refuses a request whose Host is not
 * the admin address (DNS rebinding); with `enforce_origin` it also refuses one without an `Origin`
 * naming that address, so a web page in the operator's browser (Origin: its own site) cannot drive
 * it, not even with a "simple" cross-site POST that CORS lets through. Every request the product
 * makes sends `caddyAdminOrigin` (scripts/lib/system.mjs keeps a plain-JS copy for the launcher).
 */
export function caddyAdminConfig(adminUrl: string): { listen: string; origins: string[]; enforce_origin: true } {
  const url = new URL(adminUrl);
  // `origins` also decides which Host Caddy accepts: the address as a client names it (no `:80`).
  return { listen: `${url.hostname}:${url.port || "80"}`, origins: [url.host], enforce_origin: true };
}

/** The `Origin` every request of the product to Caddy's admin API sends. */
export const caddyAdminOrigin = (adminUrl: string): string => new URL(adminUrl).origin;
