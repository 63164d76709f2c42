import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { caddyAdminConfig, caddyAdminOrigin } from "@levelrail/spec/caddy-admin";
import { freePort } from "./registry";
import { waitFor } from "./wait";

export interface TestCaddy {
  /** e.g. `http://127.0.0.1:41234` */
  adminUrl: string;
  /** A request to the admin API as the product makes it: with the admin address as `Origin` (Caddy refuses any other). */
  admin(path: string, init?: RequestInit): Promise<Response>;
  /** How many `POST /load` requests Caddy has received since this admin port was first started (across restarts). */
  loads(): number;
  /** Caddy's own log so far (JSON lines), for a failure message. */
  log(): string;
  /** Stops Caddy and starts it again on the same admin port with the admin-only config (as after a host reboot). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A real Caddy (the OS's `caddy` binary) of the test's own: `caddy run` with an
 * admin-only config on a free loopback port (enforcing its origin, as the product runs it), its
 * state in a temp dir. Servers
 * and routes are whatever the test or the ingress controller loads.
 *
 * `resolvConf`: the `/etc/resolv.conf` Caddy's process sees (bind-mounted in a mount namespace of
 * its own, as a container gets its own; needs root and `unshare`). Its Go resolver reads the
 * number of servers, `attempts` and `timeout` from it.
 */
export async function startCaddy(o: { resolvConf?: string } = {}): Promise<TestCaddy> {
  const dir = mkdtempSync(join(tmpdir(), "lr-caddy-"));
  const adminPort = await freePort();
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const configFile = join(dir, "admin.json");
  writeFileSync(configFile, JSON.stringify({ admin: caddyAdminConfig(adminUrl) }));
  const resolvFile = join(dir, "resolv.conf");
  if (o.resolvConf !== undefined) writeFileSync(resolvFile, o.resolvConf);
  const [command, args] =
    o.resolvConf === undefined
      ? ["caddy", ["run", "--config", configFile]]
      : ["unshare", ["--mount", "--propagation", "private", "sh", "-c", 'mount --bind "$1" /etc/resolv.conf && exec caddy run --config "$2"', "sh", resolvFile, configFile]];
  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${adminUrl}${path}`, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), Origin: caddyAdminOrigin(adminUrl) } });
  let output = "";
  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const answers = async () => {
    const res = await admin("/config/", { signal: AbortSignal.timeout(2000) }).catch(() => null);
    return res?.ok ? true : undefined;
  };

  const start = async () => {
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      // Certificates and the autosaved config stay in the temp dir, not in $HOME.
      env: { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    });
    let gone = false;
    child.stdout?.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr?.on("data", (b: Buffer) => (output += b.toString()));
    exited = new Promise((resolve) => child.once("exit", () => ((gone = true), resolve())));
    child.once("error", (err) => (output += `\nspawn caddy: ${err.message}\n`));
    proc = child;
    await waitFor("Caddy's admin API to answer", async () => {
      if (gone) throw new Error(`caddy exited at start; its log:\n${output.slice(-2000)}`);
      return answers();
    }, { timeoutMs: 20_000 });
  };

  const halt = async () => {
    const child = proc;
    proc = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(killer);
  };

  await start();
  return {
    adminUrl,
    admin,
    loads: () => output.split("\n").filter((l) => l.includes('"logger":"admin.api"') && l.includes('"method":"POST"') && l.includes('"uri":"/load"')).length,
    log: () => output,
    async restart() {
      await halt();
      await start();
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
