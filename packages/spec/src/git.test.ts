import { describe, expect, it } from "vitest";
import { credentialMayReach, gitCredentialInput, gitSourceInput, repositoryEndpoint, tokenOverPlainHttp } from "./git";
import { serviceSource } from "./service";

/** The first issue's path, joined like the service layer names a field (undefined: accepted). */
const fieldOf = (input: unknown): string | undefined => {
  const r = gitSourceInput.safeParse(input);
  if (r.success) return undefined;
  return r.error.issues[0]?.path.map(String).join(".");
};

const URL_OK = "https://git.example.com/team/shop.git";

describe("gitSourceInput: urls", () => {
  it.each([
    URL_OK,
    "http://127.0.0.1:8418/shop.git",
    "https://github.com/acme/shop",
    "ssh://git@git.example.com:2222/team/shop.git",
    "ssh://git.example.com/team/shop.git",
    "git@github.com:acme/shop.git",
    "deploy@10.0.0.5:repos/shop",
    "git@[::1]:shop.git",
  ])("accepts %s", (url) => {
    expect(fieldOf({ url })).toBeUndefined();
  });

  it.each([
    ["ext::sh -c touch% /tmp/pwned", "transport helpers"],
    ["ext::ssh -oProxyCommand=x", "transport helpers"],
    ["fd::3", "transport helpers"],
    ["file:///etc/passwd", "file:// is not allowed"],
    ["/srv/git/shop.git", "local path"],
    ["./shop", "local path"],
    ["../shop", "local path"],
    ["~/shop", "local path"],
    ["C:\\repos\\shop", "local path"],
    ["-uhttps://x", "must not start with '-'"],
    ["--upload-pack=touch /tmp/x", "must not start with '-'"],
    ["https://user:secret@git.example.com/shop.git", "must not carry a password"],
    ["https://ghp_token@github.com/acme/shop.git", "must not carry a user name or token"],
    ["ssh://git:pw@git.example.com/shop.git", "must not carry a password"],
    ["git@host:-oProxyCommand=x", "path starting with '-'"],
    ["ftp://git.example.com/shop.git", "ftp:// is not allowed"],
    ["git://git.example.com/shop.git", "git:// is not allowed"],
    ["https://git.example.com/", "repository path"],
    ["https://git.example.com/a b", "spaces"],
    ["https://git.example.com/a\nb", "control"],
    ["shop", "must be https://"],
    ["", "is required"],
  ])("refuses %j (%s)", (url, why) => {
    const r = gitSourceInput.safeParse({ url });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.path).toEqual(["url"]);
    expect(r.error?.issues[0]?.message).toContain(why);
  });
});

describe("gitSourceInput: refs", () => {
  it.each(["main", "release/1.4", "v1.4.2", "feature/a-b_c", "HEAD-ish", "x@y"])("accepts %s", (ref) => {
    expect(fieldOf({ url: URL_OK, ref })).toBeUndefined();
  });

  it.each(["", "-main", "a..b", "a b", "a\tb", "a~1", "a^", "a:b", "a?", "a*", "a[b", "a\\b", "a@{1}", "@", "/main", "main/", "a//b", "main.", ".hidden", "a/.b", "x.lock", "a/b.lock", "a\u0000b", "a\u007fb"])("refuses %j", (ref) => {
    expect(fieldOf({ url: URL_OK, ref })).toBe("ref");
  });
});

describe("gitSourceInput: path and dockerfile", () => {
  it.each([".", "services/web", "./web", "a/b/c", "web..old"])("accepts %s", (p) => {
    expect(fieldOf({ url: URL_OK, path: p, dockerfile: `${p}/Dockerfile` })).toBeUndefined();
  });

  it.each(["/etc", "../up", "a/../../b", "..", "a\\..\\b", "\\abs", "C:/x", "-x", "", "a\nb"])("refuses %j as path and as dockerfile", (p) => {
    expect(fieldOf({ url: URL_OK, path: p })).toBe("path");
    expect(fieldOf({ url: URL_OK, dockerfile: p })).toBe("dockerfile");
  });
});

describe("gitSourceInput: the other fields", () => {
  it("fills the defaults", () => {
    expect(gitSourceInput.parse({ url: URL_OK })).toEqual({
      url: URL_OK,
      ref: "main",
      path: ".",
      dockerfile: "Dockerfile",
      credentialId: null,
      buildArgs: [],
      target: null,
      pollIntervalSeconds: null,
      apiProvider: null,
      apiUrl: null,
      apiCredentialId: null,
    });
  });

  it.each([
    [{ buildArgs: ["NODE_ENV", "_X"] }, undefined],
    [{ buildArgs: ["1BAD"] }, "buildArgs.0"],
    [{ buildArgs: ["A-B"] }, "buildArgs.0"],
    [{ buildArgs: ["A", "A"] }, "buildArgs"],
    [{ buildArgs: ["NODE_ENV", "BUILDKIT_CACHE_MOUNT_NS"] }, "buildArgs"],
    [{ buildArgs: ["BUILDKIT_SYNTAX"] }, "buildArgs"],
    [{ pollIntervalSeconds: null }, undefined],
    [{ pollIntervalSeconds: 60 }, undefined],
    [{ pollIntervalSeconds: 86400 }, undefined],
    [{ pollIntervalSeconds: 59 }, "pollIntervalSeconds"],
    [{ pollIntervalSeconds: 86401 }, "pollIntervalSeconds"],
    [{ pollIntervalSeconds: 90.5 }, "pollIntervalSeconds"],
    [{ pollIntervalSeconds: "60" }, "pollIntervalSeconds"],
    [{ target: "build-stage" }, undefined],
    [{ target: "-x" }, "target"],
    [{ target: "a b" }, "target"],
    [{ credentialId: "not-a-uuid" }, "credentialId"],
    [{ credentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" }, undefined],
    [{ branch: "main" }, ""],
    // The provider API: all or nothing, a supported provider, a plain base URL (the address policy is the verb's).
    [{ apiProvider: "github", apiUrl: "https://api.github.com" }, undefined],
    [{ apiProvider: "gitea", apiUrl: "https://gitea.example.com/api/v1", apiCredentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" }, undefined],
    [{ apiProvider: "gitlab", apiUrl: "http://127.0.0.1:8080/api/v4" }, undefined],
    [{ apiProvider: null, apiUrl: null, apiCredentialId: null }, undefined],
    [{ apiProvider: "bitbucket", apiUrl: "https://api.bitbucket.org" }, "apiProvider"],
    [{ apiProvider: "GitHub", apiUrl: "https://api.github.com" }, "apiProvider"],
    [{ apiProvider: "github" }, "apiUrl"],
    [{ apiUrl: "https://api.github.com" }, "apiProvider"],
    [{ apiCredentialId: "0b7a2f49-6a3c-4d2e-8f10-2b3c4d5e6f70" }, "apiCredentialId"],
    [{ apiProvider: "github", apiUrl: "api.github.com" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "ftp://api.github.com" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "file:///etc/passwd" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "https://user:tok@api.github.com" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "https://api.github.com/?x=1" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "https://api.github.com/#f" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "" }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: `https://a.example/${"x".repeat(2048)}` }, "apiUrl"],
    [{ apiProvider: "github", apiUrl: "https://api.github.com", apiCredentialId: "tok" }, "apiCredentialId"],
  ])("%j → %s", (extra, field) => {
    const r = gitSourceInput.safeParse({ url: URL_OK, ...extra });
    if (field === undefined) expect(r.success).toBe(true);
    else expect(r.error?.issues[0]?.path.map(String).join(".")).toBe(field);
  });
});

describe("serviceSource", () => {
  it("takes an image or a git source, not both, not neither", () => {
    expect(serviceSource.safeParse({ image: "nginx:1" }).success).toBe(true);
    expect(serviceSource.safeParse({ git: { url: URL_OK } }).success).toBe(true);
    expect(serviceSource.safeParse({}).success).toBe(false);
    expect(serviceSource.safeParse({ image: "nginx:1", git: { url: URL_OK } }).success).toBe(false);
    expect(serviceSource.safeParse({ git: { url: "file:///x" } }).error?.issues[0]?.path).toEqual(["git", "url"]);
  });
});

describe("gitCredentialInput", () => {
  it.each([
    [{ kind: "ssh", name: "deploy" }, undefined],
    [{ kind: "token", name: "gh", token: "ghp_abc123", hosts: ["github.com", "api.github.com"] }, undefined],
    [{ kind: "token", name: "gl", token: "glpat-x", username: "oauth2", hosts: ["gitlab.example.com:8443"] }, undefined],
    [{ kind: "token", name: "gh", token: "ghp_abc123" }, "hosts"],
    [{ kind: "token", name: "gh", token: "ghp_abc123", hosts: [] }, "hosts"],
    [{ kind: "token", name: "gh", token: "t", hosts: ["https://github.com"] }, "hosts.0"],
    [{ kind: "token", name: "gh", token: "t", hosts: ["github.com/acme"] }, "hosts.0"],
    [{ kind: "token", name: "gh", token: "t", hosts: ["*.github.com"] }, "hosts.0"],
    [{ kind: "token", name: "gh", token: "t", hosts: ["github.com:99999"] }, "hosts.0"],
    [{ kind: "token", name: "gh", token: "t", hosts: ["github.com", "GitHub.com"] }, "hosts"],
    [{ kind: "ssh", name: "deploy", hosts: ["git.example.com"] }, undefined],
    [{ kind: "ssh", name: "deploy", hosts: ["user@git.example.com"] }, "hosts.0"],
    [{ kind: "ssh", name: "Deploy Key" }, "name"],
    [{ kind: "ssh" }, "name"],
    [{ kind: "token", name: "gh", hosts: ["h"] }, "token"],
    [{ kind: "token", name: "gh", token: "a b", hosts: ["h"] }, "token"],
    [{ kind: "token", name: "gh", token: "t", username: "a:b", hosts: ["h"] }, "username"],
    [{ kind: "ssh", name: "k", token: "t" }, ""],
    [{ kind: "password", name: "k" }, "kind"],
    [{ name: "k" }, "kind"],
  ])("%j → %s", (input, field) => {
    const r = gitCredentialInput.safeParse(input);
    if (field === undefined) expect(r.success).toBe(true);
    else expect(r.error?.issues[0]?.path.map(String).join(".")).toBe(field);
  });
});

describe("repositoryEndpoint", () => {
  it.each([
    ["https://GitHub.com./acme/shop.git", { scheme: "https", host: "github.com", port: 443 }],
    ["http://127.0.0.1:8080/shop.git", { scheme: "http", host: "127.0.0.1", port: 8080 }],
    ["ssh://git@git.example.com:2222/acme/shop.git", { scheme: "ssh", host: "git.example.com", port: 2222 }],
    ["git@git.example.com:acme/shop.git", { scheme: "ssh", host: "git.example.com", port: 22 }],
    ["https://[2001:db8::1]/x.git", { scheme: "https", host: "2001:db8::1", port: 443 }],
  ])("%s → %j", (url, endpoint) => expect(repositoryEndpoint(url)).toEqual(endpoint));

  it.each([
    // Read as two different hosts by two URL parsers (WHATWG: good.example; curl: evil.example).
    "https://good.example\\@evil.example/x.git",
    "https://good.example?@evil.example/x.git",
    "https://good.example#@evil.example/x.git",
    "https://a%2e@evil.example/x.git",
    "https://good_example/x.git",
    "https://good.example:0/x.git",
    "ext::sh -c id",
  ])("%s → null", (url) => expect(repositoryEndpoint(url)).toBeNull());
});

describe("credentialMayReach", () => {
  const token = (hosts: string[]) => ({ kind: "token" as const, hosts });
  const at = (url: string) => repositoryEndpoint(url)!;
  it("a token reaches only the hosts it lists: any port for a bare host, exactly the port given", () => {
    expect(credentialMayReach(token(["github.com"]), at("https://github.com/acme/x.git"))).toBe(true);
    expect(credentialMayReach(token(["github.com"]), at("https://attacker.example/x.git"))).toBe(false);
    expect(credentialMayReach(token(["github.com"]), at("https://github.com.attacker.example/x.git"))).toBe(false);
    expect(credentialMayReach(token(["git.example.com:8443"]), at("https://git.example.com:8443/x.git"))).toBe(true);
    expect(credentialMayReach(token(["git.example.com:8443"]), at("https://git.example.com/x.git"))).toBe(false);
    expect(credentialMayReach(token(["127.0.0.1:9"]), at("http://localhost:9/x.git"))).toBe(false);
    expect(credentialMayReach(token([]), at("https://github.com/acme/x.git"))).toBe(false);
  });
  it("a token never goes over plain http://, its host listed or not, unless the installation allows private targets", () => {
    expect(credentialMayReach(token(["git.example.com"]), at("http://git.example.com/x.git"))).toBe(false);
    expect(credentialMayReach(token(["git.example.com:80"]), at("http://git.example.com/x.git"))).toBe(false);
    expect(credentialMayReach(token(["git.example.com"]), at("HTTP://git.example.com/x.git"))).toBe(false);
    expect(credentialMayReach(token(["git.example.com"]), at("https://git.example.com/x.git"))).toBe(true);
    expect(credentialMayReach(token(["127.0.0.1"]), at("http://127.0.0.1:9/x.git"), { allowPlainHttp: true })).toBe(true);
    expect(credentialMayReach(token(["127.0.0.1"]), at("http://127.0.0.1:9/x.git"), { allowPlainHttp: false })).toBe(false);
    expect(tokenOverPlainHttp({ kind: "token" }, at("http://git.example.com/x.git"), false)).toMatch(/never sent over plain http:\/\/; use the repository's https:\/\/ URL/);
    expect(tokenOverPlainHttp({ kind: "token" }, at("http://git.example.com/x.git"), true)).toBeNull();
    expect(tokenOverPlainHttp({ kind: "token" }, at("https://git.example.com/x.git"), false)).toBeNull();
    // A deploy key's private half never leaves the worker; its scheme is ssh anyway.
    expect(tokenOverPlainHttp({ kind: "ssh" }, at("git@git.example.com:x.git"), false)).toBeNull();
  });
  it("a deploy key with no hosts reaches any host; with hosts only those", () => {
    expect(credentialMayReach({ kind: "ssh", hosts: [] }, at("git@anywhere.example:x.git"))).toBe(true);
    expect(credentialMayReach({ kind: "ssh", hosts: ["git.example.com"] }, at("git@anywhere.example:x.git"))).toBe(false);
  });
});
