import { describe, expect, it } from "vitest";
import { CONTAINER_ENGINE_DIR, installConfig } from "./config";
import { postgresSpec, webSpec, workerSpec } from "./specs";

const env = { LEVELRAIL_SHORT_NAME: "lrx", PORT: "3507", LEVELRAIL_INGRESS_HTTP_PORT: "18487", LEVELRAIL_PG_PORT: "54507", DOCKER_HOST: "unix:///run/x.sock", LEVELRAIL_PUBLIC_URL: "http://panel.example" };
const cfg = installConfig(env, "/srv/lr");
const release = { id: "abc", dir: "/srv/lr/releases/abc", mountAt: "/src/levelrail" };
const specs = [postgresSpec(cfg, "pg"), webSpec(cfg, "node", release), workerSpec(cfg, "node", release)];

describe("installConfig", () => {
  it("reads the ports and the engine's socket, and passes settings on without secrets or host paths", () => {
    expect(cfg).toMatchObject({ shortName: "lrx", webPort: 3507, pgPort: 54507, ingressHttpPort: 18487, dockerSocket: "/run/x.sock" });
    const withKey = { ...env, LEVELRAIL_DATA_DIR: "/elsewhere", LEVELRAIL_TEST_DATA_DIR: "/t", LEVELRAIL_SWARM_REGISTRY_PASSWORD: "hunter2" };
    expect(Object.keys(installConfig(withKey, "/srv/lr").panelEnv).sort()).toEqual(["LEVELRAIL_INGRESS_HTTP_PORT", "LEVELRAIL_PUBLIC_URL", "LEVELRAIL_SHORT_NAME", "PORT"]);
  });

  it("refuses secrets in the environment, another engine, and bad settings", () => {
    expect(() => installConfig({ ...env, LEVELRAIL_MASTER_KEY: "k" }, "/d")).toThrow(/master\.key/);
    expect(() => installConfig({ ...env, DATABASE_URL: "postgres://x" }, "/d")).toThrow(/runs its own PostgreSQL/);
    expect(() => installConfig({ ...env, DOCKER_HOST: "tcp://1.2.3.4:2375" }, "/d")).toThrow(/unix socket/);
    expect(() => installConfig({ ...env, LEVELRAIL_PG_PORT: "x" }, "/d")).toThrow(/LEVELRAIL_PG_PORT/);
    expect(() => installConfig({ ...env, PORT: "0" }, "/d")).toThrow(/PORT/);
  });
});

describe("container specs", () => {
  it("on a swarm manager's edge, the worker reaches the edge's Caddy admin socket at the path its label names", () => {
    const mounts = workerSpec(cfg, "node", release, { edge: true }).create.HostConfig?.Mounts ?? [];
    expect(mounts).toContainEqual({ Type: "bind", Source: "/srv/lr/edge-caddy", Target: "/srv/lr/edge-caddy" });
    expect(workerSpec(cfg, "node", release).create.HostConfig?.Mounts?.some((m) => m.Source === "/srv/lr/edge-caddy")).toBe(false);
  });

  it("run on the host network under unless-stopped", () => {
    for (const s of specs) {
      expect(s.create.HostConfig?.NetworkMode).toBe("host");
      expect(s.create.HostConfig?.RestartPolicy?.Name).toBe("unless-stopped");
      expect(s.name.startsWith("lrx-panel-")).toBe(true);
    }
  });

  it("carry no secret in their environment: the database URL has no password, the password is a read-only file", () => {
    const [pg, web, worker] = specs;
    expect(pg?.create.Env).toContain("POSTGRES_PASSWORD_FILE=/run/secrets/pg-password");
    expect(pg?.create.HostConfig?.Mounts).toContainEqual({ Type: "bind", Source: "/srv/lr/pg-password", Target: "/run/secrets/pg-password", ReadOnly: true });
    for (const s of [web, worker]) {
      const envVars = s?.create.Env ?? [];
      expect(envVars).toContain("DATABASE_URL=postgres://postgres@127.0.0.1:54507/levelrail");
      expect(envVars).toContain("DATABASE_PASSWORD_FILE=/var/lib/levelrail/pg-password");
      expect(envVars.some((e) => /MASTER_KEY|PASSWORD=/.test(e))).toBe(false);
      const mounts = s?.create.HostConfig?.Mounts ?? [];
      expect(mounts).toContainEqual({ Type: "bind", Source: "/srv/lr", Target: "/var/lib/levelrail", ReadOnly: true });
      expect(mounts).toContainEqual({ Type: "bind", Source: release.dir, Target: release.mountAt, ReadOnly: true });
    }
  });

  it("hand the SMTP URL (and its password) to the web app as a file in the read-only data dir, never as environment", () => {
    const smtp = "smtps://mailer:hunter2-smtp@mail.example:465?from=panel%40example.com";
    const withSmtp = installConfig({ ...env, LEVELRAIL_SMTP_URL: smtp }, "/srv/lr");
    const [web, worker] = [webSpec(withSmtp, "node", release), workerSpec(withSmtp, "node", release)];
    for (const s of [web, worker]) expect(JSON.stringify(s.create)).not.toContain("hunter2-smtp");
    expect(withSmtp.smtpUrl).toBe(smtp);
    expect(web.create.Env).toContain("LEVELRAIL_SMTP_URL_FILE=/var/lib/levelrail/smtp-url");
    expect(worker.create.Env?.some((e) => e.startsWith("LEVELRAIL_SMTP_URL"))).toBe(false);
    // without one, no file is named
    expect(webSpec(cfg, "node", release).create.Env?.some((e) => e.startsWith("LEVELRAIL_SMTP_URL"))).toBe(false);
  });

  it("run the web app as a user of its own, never root, with the engine's socket through its group only; the worker stays root", () => {
    const web = webSpec(cfg, "node", release, { engineGid: 105 }).create;
    expect(web.User).toBe("65101:65101");
    expect(web.HostConfig?.GroupAdd).toEqual(["105"]);
    expect(web.HostConfig?.CapDrop).toEqual(["ALL"]);
    expect(web.HostConfig?.SecurityOpt).toEqual(["no-new-privileges"]);
    expect(workerSpec(cfg, "node", release).create.User).toBeUndefined();
    // unprivileged, it cannot listen below 1024
    expect(() => installConfig({ ...env, PORT: "80" }, "/d")).toThrow(/PORT=80: the installed web app runs as an unprivileged user/);
  });

  it("give only the worker the data plane's state to write", () => {
    const writable = (s: (typeof specs)[number]) => (s.create.HostConfig?.Mounts ?? []).filter((m) => m.Type === "bind" && !m.ReadOnly && m.Target !== CONTAINER_ENGINE_DIR).map((m) => m.Target);
    expect(writable(specs[2]!)).toEqual(["/var/lib/levelrail/dataplane"]);
    expect(writable(specs[1]!)).toEqual([]);
  });
});
