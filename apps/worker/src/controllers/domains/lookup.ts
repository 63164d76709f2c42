import { Resolver } from "node:dns/promises";
import type { Lookup } from "./plan";

/** The one DNS question the domains controller asks: does this TXT record hold this token? */
export interface TxtLookup {
  check(name: string, token: string): Promise<Lookup>;
}

/** `host:port` (or `[v6]:port`, or a bare host on port 53) to what `Resolver.setServers` takes. */
export function resolverServer(text: string): string {
  const t = text.trim();
  if (/^\[.*\](:\d+)?$/.test(t) || /^[^:]+(:\d+)?$/.test(t)) return t;
  return `[${t}]`; // a bare IPv6 address
}

const NOT_THERE = new Set(["ENOTFOUND", "ENODATA", "NXDOMAIN"]);

/**
 * TXT lookups through node's resolver (c-ares): against `server` (`LEVELRAIL_DNS_RESOLVER`) or,
 * without one, the system's. A record's strings are joined, as DNS providers split long values.
 */
export function txtLookup(server: string | undefined, timeoutMs = 3000): TxtLookup {
  return {
    async check(name, token) {
      const r = new Resolver({ timeout: timeoutMs, tries: 2 });
      if (server) r.setServers([resolverServer(server)]);
      try {
        const records = (await r.resolveTxt(name)).map((parts) => parts.join(""));
        if (records.some((v) => v.trim() === token)) return { kind: "found" };
        return { kind: "missing", result: `${name} has ${records.length} TXT record${records.length === 1 ? "" : "s"}, none holds this organization's token` };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? "";
        if (NOT_THERE.has(code)) return { kind: "missing", result: `no TXT record at ${name}` };
        return { kind: "error", result: `the DNS lookup of ${name} failed (${code || (err instanceof Error ? err.message : String(err))})` };
      } finally {
        r.cancel();
      }
    },
  };
}
