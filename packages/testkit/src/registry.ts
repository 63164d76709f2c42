import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { type AddressInfo, type Server, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "./wait";

/** A TCP port free on loopback right now. */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });

/** Whether `port` can be listened on on loopback right now. */
const canListen = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(false));
    srv.listen(port, "127.0.0.1", () => srv.close(() => resolve(true)));
  });

/** The kernel's range of ports for outgoing connections (`ip_local_port_range`), or null where it cannot be read. */
function ephemeralRange(): [number, number] | null {
  try {
    const [low, high] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
    return low && high ? [low, high] : null;
  } catch {
    return null;
  }
}

/** Where `freePortPair` starts: the fixed ports of the suites and `npm test` (10153, 15353, 18080, 18443, …) are below. */
const PAIR_FLOOR = 20_000;

/**
 * A port P free on loopback with P+1 free too (the two mesh DNS replicas), below the range the
 * kernel gives outgoing connections: the pair is bound seconds later (a replica waits for its TCP
 * port to be free), and a port of that range may by then be the local end of some connection, held
 * as long as it lives (a database pool's). Where that range cannot be read, any free pair.
 */
export async function freePortPair(): Promise<number> {
  const range = ephemeralRange();
  const ceiling = range && range[0] > PAIR_FLOOR + 1_000 ? range[0] : null;
  for (let tries = 0; ; tries++) {
    const random = ceiling !== null && tries < 200;
    const p = random ? PAIR_FLOOR + Math.floor(Math.random() * (ceiling - PAIR_FLOOR - 1)) : await freePort();
    if (p >= 65535) continue;
    if ((!random || (await canListen(p))) && (await canListen(p + 1))) return p;
  }
}

/** Listens on `port` (0: any) on loopback; the server, or null when the port is taken. */
const hold = (port: number) =>
  new Promise<Server | null>((resolve) => {
    const srv = createServer();
    srv.once("error", () => resolve(null));
    srv.listen(port, "127.0.0.1", () => resolve(srv));
  });

/**
 * Distinct ports free on loopback, one per entry of `kinds` ("pair": P with P+1 free too, for the
 * two mesh DNS replicas). Every port is held until all are found, so no two entries get the same
 * port, nor one the other's P+1 (separate `freePort` calls can).
 */
export async function freePorts(kinds: readonly ("one" | "pair")[]): Promise<number[]> {
  const held: Server[] = [];
  try {
    const out: number[] = [];
    for (const kind of kinds) {
      for (;;) {
        const srv = await hold(0);
        if (!srv) continue;
        held.push(srv);
        const p = (srv.address() as AddressInfo).port;
        if (kind === "one") {
          out.push(p);
          break;
        }
        const next = p < 65535 ? await hold(p + 1) : null;
        if (next) {
          held.push(next);
          out.push(p);
          break;
        }
      }
    }
    return out;
  } finally {
    await Promise.all(held.map((s) => new Promise((r) => s.close(r))));
  }
}

/**
 * A real private registry (Debian's docker-registry) with htpasswd auth on
 * loopback; the engine treats 127.0.0.0/8 registries as plain HTTP.
 */
export async function startRegistry(): Promise<{ server: string; username: string; password: string; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), "lr-registry-"));
  const port = await freePort();
  const username = "levelrail";
  const password = `pw-${randomBytes(8).toString("hex")}`;
  const htpasswd = execFileSync("htpasswd", ["-Bbn", username, password], { encoding: "utf8" });
  writeFileSync(join(dir, "htpasswd"), htpasswd);
  writeFileSync(
    join(dir, "config.yml"),
    [
      "version: 0.1",
      "log: { level: error }",
      `storage: { filesystem: { rootdirectory: ${join(dir, "data")} } }`,
      `http: { addr: 127.0.0.1:${port} }`,
      `auth: { htpasswd: { realm: levelrail-test, path: ${join(dir, "htpasswd")} } }`,
      "",
    ].join("\n"),
  );
  const proc: ChildProcess = spawn("docker-registry", ["serve", join(dir, "config.yml")], { stdio: "ignore" });
  const server = `127.0.0.1:${port}`;
  await waitFor("the registry to answer", async () => {
    const res = await fetch(`http://${server}/v2/`).catch(() => null);
    return res && res.status === 401 ? true : undefined;
  }, { timeoutMs: 20_000 });
  return {
    server,
    username,
    password,
    async stop() {
      proc.kill("SIGTERM");
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
