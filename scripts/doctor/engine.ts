// The Docker engine: reachable, its version, live-restore, and whether its clock agrees with ours.
import { type CheckResult, fail, ok, reason, seconds, warn } from "./result";

/** What `docker info` says that doctor uses, and when it was asked (for the clock). */
export interface EngineInfo {
  serverVersion: string;
  apiVersion: string | null;
  liveRestore: boolean;
  /** Whether the engine is a node of a swarm (which refuses live-restore). */
  swarm?: boolean;
  /** `DockerRootDir`: where images, containers and volumes live. */
  rootDir: string;
  /** `SystemTime` as the engine printed it (RFC 3339, nanoseconds). */
  systemTime: string;
  /** `Date.now()` just before the request and just after the answer. */
  sentAt: number;
  receivedAt: number;
}

/** `info()` throws when the engine does not answer. */
export interface EngineProbe {
  /** `DOCKER_HOST`, or the local socket. */
  where: string;
  info(): Promise<EngineInfo>;
}

export const DAEMON_JSON = "/etc/docker/daemon.json";

export async function engineCheck(p: EngineProbe): Promise<CheckResult> {
  try {
    const i = await p.info();
    return ok("engine", `Docker ${i.serverVersion}${i.apiVersion ? ` (API ${i.apiVersion})` : ""} answers at ${p.where}`, { version: i.serverVersion, host: p.where });
  } catch (err) {
    return fail("engine", `the Docker engine does not answer at ${p.where} (${reason(err)}): start it (\`systemctl start docker\`) or set DOCKER_HOST`, { host: p.where });
  }
}

const engineDown = (name: string) => warn(name, "not checked: the Docker engine does not answer");

export async function liveRestoreCheck(p: EngineProbe): Promise<CheckResult> {
  const i = await p.info().catch(() => null);
  if (!i) return engineDown("live-restore");
  if (i.liveRestore) return ok("live-restore", "on: a restart of dockerd leaves the containers running", { enabled: true });
  // dockerd refuses to start with live-restore in swarm mode: the fix above would take the engine down.
  if (i.swarm) {
    return warn("live-restore", "not available in swarm mode (dockerd refuses it there): a restart of this engine stops its containers until it is back; other nodes keep their tasks running", { enabled: false, swarm: true });
  }
  return warn(
    "live-restore",
    `off: a restart of dockerd stops every container (an outage); add "live-restore": true to ${DAEMON_JSON} and reload dockerd (\`systemctl reload docker\` or SIGHUP; no restart needed)`,
    { enabled: false },
  );
}

export const CLOCK_WARN_MS = 2000;
export const CLOCK_FAIL_MS = 30_000;

/** The engine's `SystemTime` in ms since the epoch (nanoseconds cut to ms; `Date.parse` would not take nine digits everywhere). */
export function parseEngineTime(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/.exec(text.trim());
  if (!m) return Number.NaN;
  return Date.parse(`${m[1]}.${(m[2] ?? "").padEnd(3, "0").slice(0, 3)}${m[3]}`);
}

/** Our clock against the engine's: its time is compared with the midpoint of the request; the round trip is the uncertainty. */
export async function clockCheck(p: EngineProbe): Promise<CheckResult> {
  const i = await p.info().catch(() => null);
  if (!i) return engineDown("clock");
  const engine = parseEngineTime(i.systemTime);
  if (Number.isNaN(engine)) return warn("clock", `the engine's time (${JSON.stringify(i.systemTime)}) is not one doctor can read`);
  const skew = engine - (i.sentAt + i.receivedAt) / 2;
  const detail = { skewMs: Math.round(skew), roundTripMs: i.receivedAt - i.sentAt };
  const off = `this host's clock is ${seconds(skew)} ${skew > 0 ? "behind" : "ahead of"} the engine's`;
  const fix = "sync both with NTP (`timedatectl set-ntp true`)";
  if (Math.abs(skew) > CLOCK_FAIL_MS) return fail("clock", `${off}: schedules, backups and certificates go wrong; ${fix}`, detail);
  if (Math.abs(skew) > CLOCK_WARN_MS) return warn("clock", `${off}; ${fix}`, detail);
  return ok("clock", `agrees with the engine's (${Math.round(Math.abs(skew))} ms apart)`, detail);
}
