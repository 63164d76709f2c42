// Caddy, the ingress, as a container `<short>-caddy` on the host network under the engine's restart
// policy: a killed Caddy is back within a second or two, and a rebooted host serves again as soon as
// dockerd is up. Its image is built here `FROM scratch` from the host's `caddy` binary (Debian's).
// Its state (autosaved config, certificates) lives in `<data dir>/caddy`, mounted at the same path.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROLES, LABELS, createAndStart, dataPlaneHostConfig, docker, findOwn, isRunning, ownLabels, start, stop, stopAndRemove } from "./containers.mjs";
import { BASE_ENTRIES, ensureImage, hostFile, inputsHash, linkedLibraries } from "./images.mjs";
import { onShutdown, run } from "./lifecycle.mjs";
import { Fatal, cmdline, log, pidAlive, stopPid, waitFor, which } from "./util.mjs";
import { httpStatus } from "./system.mjs";

export const DEFAULT_CADDY_ADMIN = "http://127.0.0.1:2019";
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]", "::1"]);
const CADDY = "/usr/bin/caddy";
const CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";
export const caddyHome = (dataDir) => join(dataDir, "caddy");
/** Where an earlier version recorded the pid of the Caddy process it started. */
export const legacyCaddyPidFile = (dataDir) => join(caddyHome(dataDir), "caddy.pid");

/**
 * The admin endpoint's config: on the admin URL's address, refusing any request whose Origin is not
 * that address (a web page in the operator's browser cannot drive it). The same as
 * `caddyAdminConfig` in packages/spec/src/caddy-admin.ts, which the worker keeps on every load.
 */
export function caddyAdminConfig(admin) {
  const url = new URL(admin);
  return { listen: `${url.hostname}:${url.port || "80"}`, origins: [url.host], enforce_origin: true };
}

/**
 * Caddy's /etc/resolv.conf: the host's nameservers (for ACME), no search domains, and a 1 s timeout
 * with 5 attempts per nameserver line. Go's resolver tries (lines × attempts) times and Caddy's
 * mesh DNS resolver picks one of the two replicas at random on each try, so a replica that is down
 * (refused at once) costs nothing and one that froze costs one try until its sibling kills it.
 */
export function caddyResolvConf(hostResolvConf) {
  const servers = [...hostResolvConf.matchAll(/^\s*nameserver\s+(\S+)/gm)].map((m) => m[1]).slice(0, 3);
  if (!servers.length) servers.push("127.0.0.1");
  while (servers.length < 3) servers.push(servers[servers.length - 1]);
  return `# written by Levelrail for its Caddy container\n${servers.map((s) => `nameserver ${s}`).join("\n")}\noptions timeout:1 attempts:5\n`;
}

const DOCKERFILE = ["FROM scratch", "COPY . /", 'ENTRYPOINT ["/usr/bin/caddy"]', ""].join("\n");

export function caddyEntries() {
  return [
    ...BASE_ENTRIES,
    hostFile(CADDY),
    ...linkedLibraries([CADDY]),
    ...(existsSync(CA_BUNDLE) ? [hostFile(CA_BUNDLE)] : []),
    ...(existsSync("/etc/mime.types") ? [hostFile("/etc/mime.types")] : []),
  ];
}

/** `levelrail/caddy:<inputs hash>`, built when the engine does not have it. */
export async function caddyImage() {
  const hash = inputsHash(DOCKERFILE, [hostFile(CADDY), ...(existsSync(CA_BUNDLE) ? [hostFile(CA_BUNDLE)] : [])]);
  const tag = `levelrail/caddy:${hash}`;
  await ensureImage(docker(), { tag, dockerfile: DOCKERFILE, entries: caddyEntries, hashOf: hash, labels: { [LABELS.managed]: "true" }, log });
  return { tag, version: hash };
}

/** The options of `<short>-caddy`. */
function caddyContainer({ short, dataDir, admin, image, resume }) {
  const home = caddyHome(dataDir);
  const config = join(home, "admin.json");
  return {
    name: `${short}-caddy`,
    Image: image.tag,
    Cmd: ["run", "--config", config, ...(resume ? ["--resume"] : [])],
    Env: [`XDG_DATA_HOME=${home}`, `XDG_CONFIG_HOME=${home}`, `HOME=${home}`],
    Labels: ownLabels(short, ROLES.ingress, { [LABELS.version]: image.version, "levelrail.caddy.admin": admin }),
    StopSignal: "SIGTERM",
    HostConfig: dataPlaneHostConfig({ binds: [`${home}:${home}`, `${join(home, "resolv.conf")}:/etc/resolv.conf:ro`] }),
  };
}

/** Stops a Caddy process an earlier version started detached (recorded in caddy.pid). */
async function stopLegacyCaddy(dataDir) {
  const file = legacyCaddyPidFile(dataDir);
  if (!existsSync(file)) return false;
  const pid = Number(readFileSync(file, "utf8").trim());
  rmSync(file, { force: true });
  if (!pidAlive(pid) || !cmdline(pid).join(" ").includes("caddy")) return false;
  log(`replacing the Caddy process (pid ${pid}) an earlier version started with the container; domains pause for about a second`);
  await stopPid(pid, "the Caddy process", 15_000);
  return true;
}

/** Installs caddy (for its binary) and keeps Debian's own caddy service from taking the ports. */
export async function ensureCaddyBinary() {
  if (which("caddy")) return;
  const { aptInstall } = await import("./system.mjs");
  await aptInstall(["caddy"], "Caddy");
  if (existsSync("/run/systemd/system") && which("systemctl")) {
    log("disabling Debian's caddy service: Levelrail runs Caddy in a container of its own");
    await run("systemctl", ["disable", "--now", "caddy.service"]).catch(() => {});
  }
}

/**
 * Caddy's admin API answers at `admin` from our container `<short>-caddy`: adopted when it runs
 * our current image, started when stopped, (re)created otherwise. `attached` (tests): a fresh
 * container (no resumed config) removed at shutdown.
 */
export async function ensureCaddy({ dataDir, admin, short, attached = false }) {
  const url = new URL(admin);
  if (!LOOPBACK.has(url.hostname)) {
    throw new Fatal(`LEVELRAIL_CADDY_ADMIN=${admin} is not a loopback address: Levelrail runs its own Caddy with its admin API on loopback`);
  }
  const answers = () => httpStatus({ url: admin, path: "/config/", headers: { Origin: url.origin } }).then((s) => s === 200);
  await ensureCaddyBinary();
  const image = await caddyImage();
  const home = caddyHome(dataDir);
  mkdirSync(home, { recursive: true });
  writeFileSync(join(home, "admin.json"), JSON.stringify({ admin: caddyAdminConfig(admin) }, null, 2) + "\n");
  writeFileSync(join(home, "resolv.conf"), caddyResolvConf(existsSync("/etc/resolv.conf") ? readFileSync("/etc/resolv.conf", "utf8") : ""));

  let [current, ...extra] = await findOwn(short, ROLES.ingress);
  for (const e of extra) await stopAndRemove(e);
  if (current && (attached || current.Config.Labels[LABELS.version] !== image.version)) {
    if (!attached) log(`replacing Caddy's container: its image changed (${current.Config.Labels[LABELS.version]} → ${image.version})`);
    await stopAndRemove(current);
    current = null;
  }
  if (current && !isRunning(current)) {
    log(`starting Caddy's container ${current.Name.slice(1)} (stopped)`);
    current = await start(current);
  }
  if (!current) {
    const legacy = await stopLegacyCaddy(dataDir);
    if (!legacy && (await answers())) {
      throw new Fatal(`something else answers at Caddy's admin address ${admin} (not Levelrail's Caddy container): stop it (e.g. \`systemctl disable --now caddy\`) or set LEVELRAIL_CADDY_ADMIN to a free loopback address`);
    }
    current = await createAndStart(caddyContainer({ short, dataDir, admin, image, resume: !attached }));
    log(`Caddy runs in container ${current.Name.slice(1)} (image ${image.tag}, admin ${url.host})`);
  }
  if (attached) onShutdown("caddy", () => stopAndRemove(current, 5));
  const up = await waitFor(answers, { timeoutMs: 20_000, intervalMs: 100 });
  if (!up) {
    const logs = await docker().getContainer(current.Id).logs({ stdout: true, stderr: true, tail: 20 }).catch(() => Buffer.from(""));
    throw new Fatal(`Caddy's container did not answer at ${admin} within 20 s; its last log lines:\n${logs.toString("utf8")}`);
  }
  return current;
}

/** `levelrail stop --all`: stops Caddy's container (the restart policy leaves it stopped) or an earlier version's process. */
export async function stopCaddy(dataDir, short) {
  const stopped = [];
  for (const c of await findOwn(short, ROLES.ingress)) {
    if (isRunning(c)) {
      await stop(c);
      stopped.push(`caddy (container ${c.Name.slice(1)})`);
    }
  }
  if (await stopLegacyCaddy(dataDir)) stopped.push("caddy (process)");
  return stopped;
}
