// OS-level dependencies: the Docker engine, Chromium and the test tools (Caddy: caddy.mjs). Installed from the
// Debian/Ubuntu packages when we are root and apt-get exists; otherwise one line says what to install.
import { spawn } from "node:child_process";
import { existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { DAEMON_JSON, enableLiveRestore } from "./docker-daemon.mjs";
import { run } from "./lifecycle.mjs";
import { Fatal, capture, isRoot, log, waitFor, which } from "./util.mjs";

let aptUpdated = false;

/** Installs Debian packages (after one `apt-get update` per run), or fails saying what to install. */
export async function aptInstall(packages, why) {
  if (!isRoot() || !which("apt-get")) {
    throw new Fatal(`${why} is missing: install the ${packages.join(", ")} package(s) (e.g. \`sudo apt-get install ${packages.join(" ")}\`), then run again`);
  }
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (!aptUpdated) {
    log("apt-get update");
    await run("apt-get", ["update", "-q"], { env });
    aptUpdated = true;
  }
  log(`installing ${packages.join(", ")} (${why})`);
  await run("apt-get", ["install", "-y", "-q", ...packages], { env });
}

/** GET `path` over HTTP (a unix socket when `socketPath` is given); resolves to the status, or 0. */
export function httpStatus({ socketPath, url, path = "/", headers = {} }) {
  return new Promise((resolve) => {
    const target = url ? new URL(path, url) : null;
    const req = request(
      target ? { host: target.hostname, port: target.port, path: target.pathname, headers } : { socketPath, path, headers },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.setTimeout(3000, () => req.destroy());
    req.on("error", () => resolve(0));
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// Docker

const DEFAULT_SOCKET = "/var/run/docker.sock";

/** Where to reach the engine: a unix socket path or an http URL, from DOCKER_HOST or the default. */
function dockerEndpoint() {
  const host = process.env.DOCKER_HOST;
  if (!host) return { socketPath: DEFAULT_SOCKET, local: true };
  if (host.startsWith("unix://")) {
    const socketPath = host.slice("unix://".length);
    return { socketPath, local: socketPath === DEFAULT_SOCKET || socketPath === "/run/docker.sock" };
  }
  if (host.startsWith("tcp://")) return { url: `http://${host.slice("tcp://".length)}`, local: false };
  throw new Fatal(`DOCKER_HOST=${host} is not supported: use unix:///path/to/docker.sock or tcp://host:port`);
}

const dockerAnswers = (ep) => httpStatus({ ...ep, path: "/_ping" }).then((s) => s === 200);

/** Whether a process with this command name runs (from /proc). */
function processRunning(name) {
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() === name) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

/**
 * The Docker engine answers /_ping, or we install docker.io (with live-restore on) and start
 * dockerd detached (it may outlive us), or we fail saying what to install.
 */
export async function ensureDocker({ dataDir }) {
  const ep = dockerEndpoint();
  if (await dockerAnswers(ep)) return;
  const where = ep.socketPath ?? ep.url;
  if (!ep.local) throw new Fatal(`the Docker engine at DOCKER_HOST=${process.env.DOCKER_HOST} does not answer; start it or unset DOCKER_HOST`);
  if (!isRoot()) {
    const hint = which("dockerd")
      ? `start it (\`sudo systemctl start docker\`) and make sure you may use ${where} (\`sudo usermod -aG docker $USER\`)`
      : "install docker.io (`sudo apt-get install docker.io`)";
    throw new Fatal(`the Docker engine does not answer at ${where}: ${hint}, then run again`);
  }
  if (!which("dockerd")) {
    // Our engine: live-restore on before it first starts (the package's service starts it at once).
    const outcome = which("apt-get") ? enableLiveRestore(DAEMON_JSON) : "not installing";
    if (outcome === "created" || outcome === "added") log(`turned on live-restore in ${DAEMON_JSON}: containers keep running while dockerd restarts`);
    else if (outcome === "invalid") log(`${DAEMON_JSON} is not a JSON object; left as it is (live-restore not set)`);
    await aptInstall(["docker.io"], "the Docker engine");
  }
  if (await dockerAnswers(ep)) return; // the package's service started it
  if (!processRunning("dockerd")) {
    if (existsSync("/run/systemd/system") && which("systemctl")) {
      log("starting Docker (systemctl start docker)");
      await run("systemctl", ["start", "docker"]);
    } else {
      const logFile = join(dataDir, "logs", "dockerd.log");
      log(`starting dockerd (log: ${logFile})`);
      const fd = openSync(logFile, "a");
      spawn("dockerd", [], { detached: true, stdio: ["ignore", fd, fd] }).unref();
    }
  }
  if (!(await waitFor(() => dockerAnswers(ep), { timeoutMs: 60_000, intervalMs: 500 }))) {
    throw new Fatal(`dockerd did not answer at ${where} within 60 s; see ${join(dataDir, "logs", "dockerd.log")}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Test tools

/** Chromium for Playwright plus the tools the tests build images and registries with. */
const TEST_TOOLS = [
  { pkg: "chromium", file: "/usr/bin/chromium", why: "Chromium for the end-to-end tests" },
  { pkg: "busybox-static", file: "/bin/busybox", why: "busybox for the test images" },
  { pkg: "docker-registry", file: "/usr/bin/docker-registry", why: "a registry for the private-registry tests" },
  { pkg: "apache2-utils", file: "/usr/bin/htpasswd", why: "htpasswd for the private-registry tests" },
  { pkg: "postgresql-15", file: "/usr/lib/postgresql/15/bin/postgres", why: "PostgreSQL 15, which the managed-database test image is built from" },
];

/** Whether a Debian package is installed (where there is no dpkg: whether its file exists). */
function installed({ pkg, file }) {
  if (!which("dpkg-query")) return existsSync(file);
  return capture("dpkg-query", ["-W", "-f=${Status}", pkg]).stdout.endsWith("install ok installed") && existsSync(file);
}

/** Installs whichever test tools are missing, in one apt-get call; returns Chromium's path. */
export async function ensureTestTools() {
  const missing = TEST_TOOLS.filter((t) => !installed(t));
  if (missing.length) await aptInstall(missing.map((t) => t.pkg), missing.map((t) => t.why).join("; "));
  return "/usr/bin/chromium";
}

/**
 * What `npm run test:swarm` needs besides the npm packages: the engine's binary (its engines run in
 * network namespaces; the host's own engine is not used), ip, nsenter, iptables, a registry and busybox.
 */
const SWARM_TOOLS = [
  { pkg: "docker.io", file: "/usr/sbin/dockerd", why: "dockerd for the swarm's engines" },
  { pkg: "iproute2", file: "/usr/sbin/ip", why: "ip for the swarm's network namespaces" },
  { pkg: "util-linux", file: "/usr/bin/nsenter", why: "nsenter to start an engine in a namespace" },
  { pkg: "iptables", file: "/usr/sbin/iptables", why: "iptables to let the swarm's bridge forward and to block a port in a test" },
  { pkg: "docker-registry", file: "/usr/bin/docker-registry", why: "the registry the swarm's nodes pull from" },
  { pkg: "busybox-static", file: "/bin/busybox", why: "busybox for the test images" },
  { pkg: "caddy", file: "/usr/bin/caddy", why: "Caddy for a node's ingress" },
];

/** Installs whichever swarm test tools are missing, in one apt-get call (root only; the harness needs root anyway). */
export async function ensureSwarmTools() {
  if (!isRoot()) throw new Fatal("npm run test:swarm makes network namespaces and starts dockerd in them: run it as root");
  const missing = SWARM_TOOLS.filter((t) => !installed(t));
  if (missing.length) await aptInstall(missing.map((t) => t.pkg), missing.map((t) => t.why).join("; "));
}
