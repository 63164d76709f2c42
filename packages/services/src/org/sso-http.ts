import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import type { SsoHttp } from "@levelrail/auth/sso";
import { type TargetPolicy, TargetError, bareHost, resolveTarget } from "../notifications/address";

/** The most an identity provider's answer may hold (a discovery document, a token, a key set, userinfo). */
const MAX_ANSWER = 1024 * 1024;

/**
 * Every request the panel makes to an organization's identity provider (discovery, the token
 * exchange, its key set, userinfo) under the installation's address policy, as webhooks are made:
 * the host resolved once and every address checked (unless LEVELRAIL_ALLOW_PRIVATE_TARGETS), the
 * connection made to exactly that address, plain HTTP only where private targets are allowed, no
 * redirect followed, the answer capped. Errors name the host, never the path, query or a token.
 */
export function ssoHttp(policy: TargetPolicy, timeoutMs = 10_000): SsoHttp {
  return async (href, init = {}) => {
    const url = new URL(href);
    const host = bareHost(url.hostname);
    const target = await resolveTarget(host, policy);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowPrivate)) {
      throw new TargetError(`${host}: the identity provider must be reached over https://`);
    }
    if (url.username || url.password) throw new TargetError(`${host}: an identity provider's URL may not carry credentials`);
    const pinned: LookupFunction = (_name, options, cb) => {
      if (options.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: target.address, family: target.family }]);
      else cb(null, target.address, target.family);
    };
    const body = init.body === undefined ? null : Buffer.from(init.body);
    return new Promise((resolve, reject) => {
      const req = (url.protocol === "https:" ? httpsRequest : httpRequest)(
        {
          protocol: url.protocol,
          hostname: host,
          port: url.port || (url.protocol === "https:" ? 443 : 80),
          path: `${url.pathname}${url.search}`,
          method: init.method ?? "GET",
          headers: {
            accept: "application/json",
            "user-agent": "Levelrail-SSO",
            ...(body ? { "content-length": String(body.length) } : {}),
            ...init.headers,
            connection: "close",
          },
          lookup: pinned,
          agent: false,
          signal: AbortSignal.timeout(timeoutMs),
          ...(url.protocol === "https:" ? { servername: host } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > MAX_ANSWER) res.destroy(new Error(`${host} answered more than ${MAX_ANSWER} bytes`));
            else chunks.push(c);
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", (err) => reject(new Error(`${host}: ${err.message}`)));
        },
      );
      req.on("error", (err: Error & { code?: string }) => reject(new Error(`could not reach ${host} (${err.code ?? err.name})`)));
      req.end(body ?? undefined);
    });
  };
}
