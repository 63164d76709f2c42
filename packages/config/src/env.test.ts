import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { databaseUrl, envSchema, parseEnv, publicUrl, quotaDefaults, requiredDatabaseUrl, smtpUrl } from "./env";

describe("envSchema", () => {
  it("gives every variable its documented default", () => {
    const env = parseEnv(envSchema, {}, "a test");
    expect(env).toEqual({
      DATABASE_URL: undefined,
      DATABASE_PASSWORD_FILE: undefined,
      LEVELRAIL_DATA_DIR: resolve(process.cwd(), ".levelrail"),
      LEVELRAIL_MASTER_KEY: undefined,
      LEVELRAIL_PREVIOUS_MASTER_KEYS: undefined,
      LEVELRAIL_SHORT_NAME: "levelrail",
      DOCKER_HOST: undefined,
      LEVELRAIL_CADDY_ADMIN: "http://127.0.0.1:2019",
      PORT: 3000,
      LEVELRAIL_PUBLIC_URL: undefined,
      LEVELRAIL_TRUSTED_PROXIES: [],
      LEVELRAIL_BASE_DOMAINS: [],
      LEVELRAIL_DNS_RESOLVER: undefined,
      LEVELRAIL_INGRESS_HTTP_PORT: 80,
      LEVELRAIL_INGRESS_HTTPS_PORT: 443,
      LEVELRAIL_INGRESS_TLS: "on",
      LEVELRAIL_NETWORK_POOL: "10.201.0.0/16",
      LEVELRAIL_MESH_DNS_PORT: 10053,
      LEVELRAIL_MESH_DNS_REPLICA: 0,
      LEVELRAIL_DRAIN_MS: 2000,
      LEVELRAIL_HOOK_TIMEOUT_SECONDS: 300,
      LEVELRAIL_PULL_TIMEOUT_SECONDS: 600,
      LEVELRAIL_BUILD_TIMEOUT_SECONDS: 1800,
      LEVELRAIL_BUILD_SLOTS: 2,
      LEVELRAIL_IMAGE_KEEP_RELEASES: 3,
      LEVELRAIL_AUDIT_RETENTION_DAYS: 365,
      LEVELRAIL_METRICS_PORT: 9464,
      LEVELRAIL_METRICS_INTERVAL_SECONDS: 10,
      LEVELRAIL_ORG_CREATION: "owners",
      LEVELRAIL_MAX_ORGS_PER_OPERATOR: 5,
      LEVELRAIL_SMTP_URL: undefined,
      LEVELRAIL_SMTP_URL_FILE: undefined,
      LEVELRAIL_QUOTA_APPS: 50,
      LEVELRAIL_QUOTA_SERVICES: 200,
      LEVELRAIL_QUOTA_DATABASES: 20,
      LEVELRAIL_QUOTA_DOMAINS: 200,
      LEVELRAIL_QUOTA_CHANNELS: 20,
      LEVELRAIL_ALLOW_PRIVATE_TARGETS: false,
      LEVELRAIL_RESYNC_SECONDS: 30,
    });
    expect(publicUrl(env)).toBe("http://localhost:3000");
  });

  it("private targets are off unless LEVELRAIL_ALLOW_PRIVATE_TARGETS is true", () => {
    const allow = (v: string | undefined) => parseEnv(envSchema, { LEVELRAIL_ALLOW_PRIVATE_TARGETS: v }, "a test").LEVELRAIL_ALLOW_PRIVATE_TARGETS;
    expect(allow(undefined)).toBe(false);
    expect(allow("")).toBe(false);
    expect(allow("false")).toBe(false);
    expect(allow("true")).toBe(true);
    expect(() => allow("yes")).toThrow(/LEVELRAIL_ALLOW_PRIVATE_TARGETS: must be true or false/);
  });

  it("resolves a relative data dir against the working directory and keeps an absolute one", () => {
    expect(parseEnv(envSchema, { LEVELRAIL_DATA_DIR: "data/x" }, "a test").LEVELRAIL_DATA_DIR).toBe(resolve(process.cwd(), "data/x"));
    expect(parseEnv(envSchema, { LEVELRAIL_DATA_DIR: "/srv/levelrail" }, "a test").LEVELRAIL_DATA_DIR).toBe("/srv/levelrail");
  });

  it("derives the public URL from PORT unless it is set", () => {
    expect(publicUrl(parseEnv(envSchema, { PORT: "3100" }, "a test"))).toBe("http://localhost:3100");
    expect(publicUrl(parseEnv(envSchema, { PORT: "3100", LEVELRAIL_PUBLIC_URL: "https://panel.example.com/" }, "a test"))).toBe("https://panel.example.com");
  });

  it("reads trusted proxies as a list of addresses and ranges", () => {
    const env = parseEnv(envSchema, { LEVELRAIL_TRUSTED_PROXIES: " 10.0.0.1, 192.168.0.0/16,::1 ," }, "a test");
    expect(env.LEVELRAIL_TRUSTED_PROXIES).toEqual(["10.0.0.1", "192.168.0.0/16", "::1"]);
  });

  it("reads the base domains as a list and the DNS resolver as host:port, and refuses anything else", () => {
    const env = parseEnv(envSchema, { LEVELRAIL_BASE_DOMAINS: "Apps.Example.com, *.b.example.org,", LEVELRAIL_DNS_RESOLVER: "127.0.0.1:5353" }, "a test");
    expect(env).toMatchObject({ LEVELRAIL_BASE_DOMAINS: ["apps.example.com", "b.example.org"], LEVELRAIL_DNS_RESOLVER: "127.0.0.1:5353" });
    expect(parseEnv(envSchema, { LEVELRAIL_DNS_RESOLVER: "[::1]:53", LEVELRAIL_BASE_DOMAINS: "" }, "a test")).toMatchObject({ LEVELRAIL_DNS_RESOLVER: "[::1]:53", LEVELRAIL_BASE_DOMAINS: [] });
    expect(() => parseEnv(envSchema, { LEVELRAIL_BASE_DOMAINS: "bad domain" }, "a test")).toThrow(/LEVELRAIL_BASE_DOMAINS/);
    expect(() => parseEnv(envSchema, { LEVELRAIL_DNS_RESOLVER: "udp://1.1.1.1" }, "a test")).toThrow(/LEVELRAIL_DNS_RESOLVER/);
  });

  it("counts an optional variable set to the empty string as unset", () => {
    const env = parseEnv(envSchema, { DATABASE_URL: "", DOCKER_HOST: "", LEVELRAIL_MASTER_KEY: "", LEVELRAIL_PUBLIC_URL: "", LEVELRAIL_TRUSTED_PROXIES: "" }, "a test");
    expect(env).toMatchObject({ DATABASE_URL: undefined, DOCKER_HOST: undefined, LEVELRAIL_MASTER_KEY: undefined, LEVELRAIL_PUBLIC_URL: undefined, LEVELRAIL_TRUSTED_PROXIES: [] });
    expect(() => parseEnv(envSchema.extend({ DATABASE_URL: requiredDatabaseUrl }), { DATABASE_URL: "" }, "the worker")).toThrow(/DATABASE_URL: is required/);
  });

  it("reads who may create organizations and the per-operator cap, and refuses a setting that is neither", () => {
    const env = parseEnv(envSchema, { LEVELRAIL_ORG_CREATION: "anyone", LEVELRAIL_MAX_ORGS_PER_OPERATOR: "20" }, "a test");
    expect(env).toMatchObject({ LEVELRAIL_ORG_CREATION: "anyone", LEVELRAIL_MAX_ORGS_PER_OPERATOR: 20 });
    expect(() => parseEnv(envSchema, { LEVELRAIL_ORG_CREATION: "everyone" }, "the web app")).toThrow(/LEVELRAIL_ORG_CREATION: must be owners, anyone or none/);
    expect(() => parseEnv(envSchema, { LEVELRAIL_MAX_ORGS_PER_OPERATOR: "-1" }, "the web app")).toThrow(/LEVELRAIL_MAX_ORGS_PER_OPERATOR/);
  });

  it("reads the default quotas as whole numbers and refuses anything else, naming the variable", () => {
    const env = parseEnv(envSchema, { LEVELRAIL_QUOTA_APPS: "3", LEVELRAIL_QUOTA_DOMAINS: "0", LEVELRAIL_QUOTA_CHANNELS: "5" }, "a test");
    expect(quotaDefaults(env)).toEqual({ apps: 3, services: 200, databases: 20, domains: 0, channels: 5 });
    expect(() => parseEnv(envSchema, { LEVELRAIL_QUOTA_SERVICES: "-1" }, "the web app")).toThrow(/LEVELRAIL_QUOTA_SERVICES: must be 0 or more/);
    expect(() => parseEnv(envSchema, { LEVELRAIL_QUOTA_DATABASES: "2.5" }, "the web app")).toThrow(/LEVELRAIL_QUOTA_DATABASES: must be a whole number/);
    expect(parseEnv(envSchema, { LEVELRAIL_QUOTA_APPS: "" }, "a test").LEVELRAIL_QUOTA_APPS).toBe(50);
    expect(() => parseEnv(envSchema, { LEVELRAIL_QUOTA_APPS: "lots" }, "the web app")).toThrow(/LEVELRAIL_QUOTA_APPS/);
  });

  it("keeps at least the live release's image and its rollback target's, and bounds the pull deadline", () => {
    expect(parseEnv(envSchema, { LEVELRAIL_IMAGE_KEEP_RELEASES: "2", LEVELRAIL_PULL_TIMEOUT_SECONDS: "30" }, "a test")).toMatchObject({ LEVELRAIL_IMAGE_KEEP_RELEASES: 2, LEVELRAIL_PULL_TIMEOUT_SECONDS: 30 });
    expect(() => parseEnv(envSchema, { LEVELRAIL_IMAGE_KEEP_RELEASES: "1" }, "the worker")).toThrow(/LEVELRAIL_IMAGE_KEEP_RELEASES: must be at least 2/);
    expect(() => parseEnv(envSchema, { LEVELRAIL_PULL_TIMEOUT_SECONDS: "0" }, "the worker")).toThrow(/LEVELRAIL_PULL_TIMEOUT_SECONDS/);
  });

  it("names every wrong variable at once", () => {
    const run = () =>
      parseEnv(
        envSchema.extend({ DATABASE_URL: requiredDatabaseUrl }),
        { PORT: "http", LEVELRAIL_TRUSTED_PROXIES: "proxy.local", LEVELRAIL_PUBLIC_URL: "ftp://x", LEVELRAIL_INGRESS_TLS: "maybe" },
        "the worker",
      );
    expect(run).toThrow(/^invalid environment for the worker:/);
    const message = (() => {
      try {
        run();
        return "";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    for (const name of ["DATABASE_URL", "PORT", "LEVELRAIL_TRUSTED_PROXIES.0", "LEVELRAIL_PUBLIC_URL", "LEVELRAIL_INGRESS_TLS"]) {
      expect(message).toContain(`\n  ${name}: `);
    }
  });
});

describe("databaseUrl", () => {
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "lr-pw-")), "pw");
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  it("is DATABASE_URL as it is without a password file", () => {
    expect(databaseUrl({ DATABASE_URL: "postgres://u:p@h:5/d" })).toBe("postgres://u:p@h:5/d");
  });

  it("puts the file's password (trailing newline dropped, encoded) into a URL without one", () => {
    const url = databaseUrl({ DATABASE_URL: "postgres://postgres@127.0.0.1:54329/levelrail", DATABASE_PASSWORD_FILE: file("a/b@c%d\n") });
    expect(decodeURIComponent(new URL(url).password)).toBe("a/b@c%d");
    expect(new URL(url).host).toBe("127.0.0.1:54329");
  });

  it("refuses a password given both ways, and an empty file", () => {
    expect(() => databaseUrl({ DATABASE_URL: "postgres://u:p@h/d", DATABASE_PASSWORD_FILE: file("x") })).toThrow(/one way only/);
    expect(() => databaseUrl({ DATABASE_URL: "postgres://u@h/d", DATABASE_PASSWORD_FILE: file("\n") })).toThrow(/is empty/);
  });
});

describe("smtpUrl", () => {
  const file = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), "lr-smtp-")), "smtp-url");
    writeFileSync(path, content, { mode: 0o600 });
    return path;
  };

  it("is LEVELRAIL_SMTP_URL, or the content of LEVELRAIL_SMTP_URL_FILE (trailing newline dropped)", () => {
    expect(smtpUrl({})).toBeUndefined();
    expect(smtpUrl({ LEVELRAIL_SMTP_URL: "smtp://u:p@mail.example:587" })).toBe("smtp://u:p@mail.example:587");
    expect(smtpUrl({ LEVELRAIL_SMTP_URL_FILE: file("smtps://u:s3cret@mail.example:465?from=a%40b.example\n") })).toBe("smtps://u:s3cret@mail.example:465?from=a%40b.example");
    expect(smtpUrl({ LEVELRAIL_SMTP_URL_FILE: file("") })).toBeUndefined();
    expect(parseEnv(envSchema, { LEVELRAIL_SMTP_URL_FILE: "/run/x" }, "a test").LEVELRAIL_SMTP_URL_FILE).toBe("/run/x");
  });

  it("refuses the URL given both ways, and a file that holds no SMTP URL, without repeating its content", () => {
    expect(() => smtpUrl({ LEVELRAIL_SMTP_URL: "smtp://h", LEVELRAIL_SMTP_URL_FILE: file("smtp://h") })).toThrow(/one way only/);
    let message = "";
    try {
      smtpUrl({ LEVELRAIL_SMTP_URL_FILE: file("http://u:s3cret@h\n") });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/must hold an smtp:\/\/ or smtps:\/\/ URL/);
    expect(message).not.toContain("s3cret");
  });
});
