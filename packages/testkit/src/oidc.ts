import { randomBytes } from "node:crypto";
import { type Server, createServer } from "node:http";
import Provider from "oidc-provider";
import { freePort } from "./registry";

/**
 * A real OpenID provider on loopback (the `oidc-provider` package with its development login and
 * consent pages: any login name is accepted, and is the user's email). `groups` sets the groups
 * claim of a login. One confidential client.
 */
export interface TestIdp {
  issuer: string;
  clientId: string;
  clientSecret: string;
  groups: Map<string, string[]>;
  /** Every request the provider got (`<method> <path>`), in order. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * `claimsInIdToken`: the ID token itself carries the email and the other claims (as many providers
 * do), not only the userinfo endpoint (oidc-provider's default for the code flow). `host`: the
 * issuer's host name (default `127.0.0.1`); it still listens on 127.0.0.1 only.
 */
export async function startOidcProvider(redirectUris: string[], o: { claimsInIdToken?: boolean; host?: string } = {}): Promise<TestIdp> {
  const port = await freePort();
  const issuer = `http://${o.host ?? "127.0.0.1"}:${port}`;
  const clientId = "levelrail-panel";
  const clientSecret = randomBytes(24).toString("base64url");
  const groups = new Map<string, string[]>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"], groups: ["groups"] },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: () => ({ sub: id, email: id, email_verified: true, name: id, groups: groups.get(id) ?? [] }),
    }),
    cookies: { keys: [randomBytes(16).toString("hex")] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    ...(o.claimsInIdToken ? { conformIdTokenClaims: false } : {}),
  });
  const requests: string[] = [];
  const handle = provider.callback();
  const server: Server = createServer((req, res) => {
    requests.push(`${req.method} ${(req.url ?? "").split("?")[0]}`);
    void handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    issuer,
    clientId,
    clientSecret,
    groups,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A browser's cookie jar for one origin: enough for the provider's interaction cookies and the panel's. */
export class CookieJar {
  private readonly jar = new Map<string, string>();
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const at = pair?.indexOf("=") ?? -1;
      if (!pair || at < 1) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === "" || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.jar.delete(name);
      else this.jar.set(name, value);
    }
  }
  header(): string {
    return [...this.jar].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  has(prefix: string): boolean {
    return [...this.jar.keys()].some((k) => k.includes(prefix));
  }
}

/**
 * Walks the provider's login and consent pages as a browser would, from the authorization URL the
 * panel answered, and returns the URL the provider finally redirects to (the panel's callback).
 */
export async function loginAtProvider(authorizationUrl: string, login: string): Promise<string> {
  const jar = new CookieJar();
  const origin = new URL(authorizationUrl).origin;
  let next: { url: string; method: "GET" | "POST"; body?: URLSearchParams } = { url: authorizationUrl, method: "GET" };
  for (let hop = 0; hop < 20; hop++) {
    const res = await fetch(next.url, {
      method: next.method,
      redirect: "manual",
      headers: { cookie: jar.header(), ...(next.body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
      ...(next.body ? { body: next.body } : {}),
    });
    jar.take(res);
    const location = res.headers.get("location");
    if (location) {
      const target = new URL(location, next.url).toString();
      if (!target.startsWith(origin)) return target;
      next = { url: target, method: "GET" };
      continue;
    }
    const html = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (!action) throw new Error(`the provider answered ${res.status} without a form at ${next.url}`);
    const url = new URL(action.replace(/&amp;/g, "&"), next.url).toString();
    const body = html.includes('name="login"') ? new URLSearchParams({ prompt: "login", login, password: "any" }) : new URLSearchParams({ prompt: "consent" });
    next = { url, method: "POST", body };
  }
  throw new Error("the provider's pages did not lead back to the panel in 20 steps");
}
