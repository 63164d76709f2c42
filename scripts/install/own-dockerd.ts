// Test support: a dockerd of the test's own (its own data root, exec root, socket, containerd
// namespace and default bridge; no iptables: the installation's containers use the host network),
// so the install test can stop and start "the engine" for a reboot without touching the shared one.
// Never `--bridge none`: a dockerd started so deletes the host's docker0, which the shared engine's
// containers use (daemon_unix.go, removeDefaultBridgeInterface).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "node:http";

export interface OwnDockerd {
  socket: string;
  dockerHost: string;
  /** The running dockerd's pid (it changes with every start). */
  pid(): number;
  start(): Promise<void>;
  /** SIGTERM, as a shutdown does; resolves once it has exited. */
  stop(): Promise<void>;
}

function ping(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request({ socketPath, path: "/_ping" }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.setTimeout(2000, () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The engine's own default bridge `<name>0` (created once, left for the next run): never docker0. */
function ensureBridge(bridge: string, address: string) {
  if (spawnSync("ip", ["link", "show", bridge]).status === 0) return;
  for (const args of [["link", "add", bridge, "type", "bridge"], ["addr", "add", address, "dev", bridge], ["link", "set", bridge, "up"]]) {
    const r = spawnSync("ip", args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr.trim()}`);
  }
}

/**
 * `name` keeps it apart from other tests' (socket /run/<name>-docker.sock, bridge <name>0 on
 * `bridgeAddress`); `root` holds its images between runs.
 */
export function ownDockerd(name: string, root: string, bridgeAddress = "172.31.250.1/24"): OwnDockerd {
  const bridge = `${name.slice(0, 14)}0`;
  const socket = `/run/${name}-docker.sock`;
  const pidFile = `/run/${name}-docker.pid`;
  const pid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : 0);
  const args = [
    "--data-root", join(root, "root"),
    "--exec-root", `/run/${name}-exec`,
    "-H", `unix://${socket}`,
    "--pidfile", pidFile,
    "--bridge", bridge,
    "--iptables=false",
    "--ip-masq=false",
    "--containerd-namespace", name,
    "--containerd-plugins-namespace", `${name}-plugins`,
  ];
  return {
    socket,
    dockerHost: `unix://${socket}`,
    pid,
    async start() {
      if (await ping(socket)) return;
      mkdirSync(root, { recursive: true });
      ensureBridge(bridge, bridgeAddress);
      const log = openSync(join(root, "dockerd.log"), "a");
      spawn("dockerd", args, { detached: true, stdio: ["ignore", log, log] }).unref();
      await until(() => ping(socket), 60_000, `dockerd (${socket}) did not answer`);
    },
    async stop() {
      const p = pid();
      if (!p || !alive(p)) return;
      process.kill(p, "SIGTERM");
      await until(() => !alive(p), 60_000, `dockerd ${p} did not stop`);
    },
  };
}
