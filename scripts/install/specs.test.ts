import { describe, expect, it } from "vitest";
import type { ProcFs } from "../doctor/procfs";
import { installConfig } from "./config";
import { foreignHolder } from "./ports";
import { postgresSpec, webSpec, workerSpec } from "./specs";

const env = { LEVELRAIL_SHORT_NAME: "lrx", PORT: "3507", LEVELRAIL_INGRESS_HTTP_PORT: "18487", LEVELRAIL_PG_PORT: "54507", DOCKER_HOST: "unix:///run/x.sock", LEVELRAIL_PUBLIC_URL: "http://panel.example" };
const cfg = installConfig(env, "/srv/lr");
const release = { id: "abc", dir: "/srv/lr/releases/abc", mountAt: "/src/levelrail" };
const specs = [postgresSpec(cfg, "pg"), webSpec(cfg, "node", release), workerSpec(cfg, "node", release)];

describe("installConfig", () => {
  it("reads the ports and the engine's socket, and passes settings on without secrets or host paths", () => {
    expect(cfg).toMatchObject({ shortName: "lrx", webPort: 3507, pgPort: 54507, ingressHttpPort: 18487, dockerSocket: "/run/x.sock" });
    const withKey = { ...env, LEVELRAIL_DATA_DIR: "/elsewhere", LEVELRAIL_TEST_DATA_DIR: "/t" };
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

  it("give only the worker the data plane's state to write", () => {
    const writable = (s: (typeof specs)[number]) => (s.create.HostConfig?.Mounts ?? []).filter((m) => m.Type === "bind" && !m.ReadOnly && !m.Target.endsWith(".sock")).map((m) => m.Target);
    expect(writable(specs[2]!)).toEqual(["/var/lib/levelrail/dataplane"]);
    expect(writable(specs[1]!)).toEqual([]);
  });
});

describe("foreignHolder", () => {
  // port 80 (0050) listened on by inode 11 (held by pid 7, an nginx) and port 443 (01BB) by inode 22 (pid 9, caddy, child of 8)
  const files: Record<string, string> = {
    "/proc/net/tcp": "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n   0: 00000000:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 11\n   1: 00000000:01BB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 22\n",
    "/proc/7/comm": "nginx\n",
    "/proc/9/comm": "caddy\n",
    "/proc/9/stat": "9 (caddy) S 8 9 9 0",
    "/proc/7/stat": "7 (nginx) S 1 7 7 0",
  };
  const fs: ProcFs = {
    read: (p) => files[p] ?? null,
    list: (p) => ({ "/proc": ["7", "9", "self"], "/proc/7/fd": ["3"], "/proc/9/fd": ["4"] })[p] ?? [],
    link: (p) => ({ "/proc/7/fd/3": "socket:[11]", "/proc/9/fd/4": "socket:[22]" })[p] ?? null,
  };

  it("names a program that is not ours, and accepts our Caddy (or its children) and free ports", () => {
    expect(foreignHolder(fs, [80, 443], new Set([8]))).toEqual({ port: 80, name: "nginx", pid: 7 });
    expect(foreignHolder(fs, [443], new Set([8]))).toBeNull();
    expect(foreignHolder(fs, [8080], new Set())).toBeNull();
    expect(foreignHolder(fs, [443], new Set())).toEqual({ port: 443, name: "caddy", pid: 9 });
  });
});
