import type { SsoHttp } from "@levelrail/auth/sso";
import { pinnedRequest } from "../net/pinned-request";
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
    const body = init.body === undefined ? null : Buffer.from(init.body);
    const headers = { accept: "application/json", "user-agent": "Levelrail-SSO", ...init.headers };
    return pinnedRequest(url, host, target, { method: init.method ?? "GET", headers, body, timeoutMs, maxAnswer: MAX_ANSWER });
  };
}
