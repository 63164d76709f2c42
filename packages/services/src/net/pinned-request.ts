import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { ResolvedAddress } from "../notifications/address";

export interface PinnedRequest {
  method: string;
  headers: Record<string, string>;
  body: Buffer | null;
  timeoutMs: number;
  /** The most of the answer read; a longer one fails the request. */
  maxAnswer: number;
}

/**
 * One HTTP(S) request to `url`, connected to exactly `target` (the address the outbound policy
 * checked: the name is never resolved again), TLS still checked against the URL's host, no redirect
 * followed, the answer read to `maxAnswer` bytes. Errors name the host, never the path, the query or
 * a header (a token may be in any of them). See docs/security.md, outbound connections.
 */
export function pinnedRequest(url: URL, host: string, target: ResolvedAddress, o: PinnedRequest): Promise<{ status: number; text: string }> {
  const pinned: LookupFunction = (_name, options, cb) => {
    if (options.all) (cb as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  return new Promise((resolve, reject) => {
    const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || (url.protocol === "https:" ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: o.method,
        headers: { ...(o.body ? { "content-length": String(o.body.length) } : {}), ...o.headers, connection: "close" },
        lookup: pinned,
        agent: false,
        signal: AbortSignal.timeout(o.timeoutMs),
        ...(url.protocol === "https:" ? { servername: host } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > o.maxAnswer) res.destroy(new Error(`${host} answered more than ${o.maxAnswer} bytes`));
          else chunks.push(c);
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        res.on("error", (err) => reject(new Error(`${host}: ${err.message}`)));
      },
    );
    req.on("error", (err: Error & { code?: string }) => reject(new Error(`could not reach ${host} (${err.code ?? err.name})`)));
    req.end(o.body ?? undefined);
  });
}
