// The data plane as Caddy and the apps use it: Caddy's admin API, and the mesh DNS answering a
// name it must know (one of the services in the state file the worker writes for it).
import { createSocket } from "node:dgram";
import { readFileSync } from "node:fs";
import * as dnsPacket from "dns-packet";
import { caddyAdminOrigin } from "@levelrail/spec/caddy-admin";
import { type DataPlaneState, dataPlaneStateSchema } from "@levelrail/spec/dataplane";
import { meshName } from "@levelrail/spec/naming";
import { type CheckResult, fail, ok, reason, warn } from "./result";

/** How long one request of a probe may take: under the check's deadline, so the probe reports why. */
export const PROBE_TIMEOUT_MS = 1500;

export type HttpAnswer = { status: number; body: string } | { error: string };

export interface CaddyProbe {
  adminUrl: string;
  /** `GET <admin>/config/` with the admin address as `Origin` (Caddy enforces it). */
  config(): Promise<HttpAnswer>;
}

export function httpCaddyProbe(adminUrl: string): CaddyProbe {
  return {
    adminUrl,
    config: () => httpGet(new URL("/config/", adminUrl).toString(), { Origin: caddyAdminOrigin(adminUrl) }),
  };
}

export async function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return { status: res.status, body: await res.text() };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    return { error: reason(cause ?? err) };
  }
}

export async function caddyAdminCheck(p: CaddyProbe): Promise<CheckResult> {
  const r = await p.config();
  if ("error" in r) return fail("caddy-admin", `Caddy's admin API does not answer at ${p.adminUrl} (${r.error}): is Caddy running? \`npm start\` starts it (or set LEVELRAIL_CADDY_ADMIN)`);
  if (r.status === 403) return fail("caddy-admin", `Caddy's admin API at ${p.adminUrl} refuses doctor (403): it enforces another origin; is LEVELRAIL_CADDY_ADMIN the address Caddy was started with?`);
  if (r.status !== 200) return fail("caddy-admin", `Caddy's admin API at ${p.adminUrl} answers ${r.status}: ${r.body.trim().slice(0, 200)}`);
  const servers = (() => {
    try {
      const c = JSON.parse(r.body) as { apps?: { http?: { servers?: Record<string, unknown> } } } | null;
      return Object.keys(c?.apps?.http?.servers ?? {}).length;
    } catch {
      return 0;
    }
  })();
  if (servers === 0) return warn("caddy-admin", `Caddy answers at ${p.adminUrl} but serves nothing yet: the worker loads its config (is it running?)`, { servers });
  return ok("caddy-admin", `Caddy answers at ${p.adminUrl} (${servers} server${servers === 1 ? "" : "s"})`, { servers });
}

export type DnsAnswer = { rcode: string; addresses: string[] } | { error: string };

export interface MeshProbe {
  /** LEVELRAIL_MESH_DNS_PORT: replica 0's. */
  port: number;
  zone: string;
  shortName: string;
  stateFile: string;
  /** The state the worker last wrote; null when there is none yet; throws when it cannot be read. */
  state(): DataPlaneState | null;
  /** The replicas to ask (replica `r` listens on `port + r`): the engine's mesh DNS containers', or [0] for a single process. */
  replicas(): Promise<number[]>;
  /** One A query over UDP to 127.0.0.1:`port`. */
  queryA(port: number, name: string): Promise<DnsAnswer>;
  /** `GET /healthz` on `port` (TCP). */
  health(port: number): Promise<HttpAnswer>;
}

export function readState(file: string): DataPlaneState | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw err;
  }
  return dataPlaneStateSchema.parse(JSON.parse(text));
}

const RCODES = ["NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED"];

/** An A query for `name` to 127.0.0.1:`port`, answered within `timeoutMs` or an error. */
export function dnsQueryA(port: number, name: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<DnsAnswer> {
  return new Promise((resolve) => {
    const socket = createSocket("udp4");
    const id = Math.floor(Math.random() * 65_536);
    const done = (a: DnsAnswer) => {
      clearTimeout(timer);
      socket.close();
      resolve(a);
    };
    const timer = setTimeout(() => done({ error: `no answer within ${timeoutMs / 1000} s` }), timeoutMs);
    socket.on("error", (err) => done({ error: reason(err) }));
    socket.on("message", (msg) => {
      try {
        const res = dnsPacket.decode(msg);
        if (res.id !== id) return;
        const addresses = (res.answers ?? []).flatMap((a) => (a.type === "A" ? [a.data] : []));
        const code = (res.flags ?? 0) & 0xf;
        done({ rcode: RCODES[code] ?? `RCODE ${code}`, addresses });
      } catch (err) {
        done({ error: `an answer that is not DNS: ${reason(err)}` });
      }
    });
    const query = dnsPacket.encode({ type: "query", id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: "A", name }] });
    socket.send(query, port, "127.0.0.1");
  });
}

/** Pure: the name to ask: a service's mesh name no other service shares (a shared one answers NXDOMAIN on loopback). */
export function knownName(state: DataPlaneState, shortName: string): { name: string; what: string } | null {
  const entries = Object.values(state.services);
  const count = new Map<string, number>();
  for (const e of entries) count.set(`${e.service}.${e.app}`, (count.get(`${e.service}.${e.app}`) ?? 0) + 1);
  const unique = entries.filter((e) => count.get(`${e.service}.${e.app}`) === 1).sort((a, b) => `${a.app}/${a.service}`.localeCompare(`${b.app}/${b.service}`));
  const e = unique[0];
  return e ? { name: meshName(shortName, e.app, e.service), what: `service ${e.app}/${e.service} (container ${e.container})` } : null;
}

/** One replica's answer: `ok` resolved (or healthy, with nothing to ask), `nodata` answered without an address, `down` silent. */
type ReplicaAnswer = { replica: number; port: number; kind: "ok" | "nodata" | "down"; text: string };

async function askReplica(p: MeshProbe, replica: number, pick: { name: string } | null): Promise<ReplicaAnswer> {
  const port = p.port + replica;
  const base = { replica, port };
  if (!pick) {
    // Nothing it must know yet: its health endpoint on the same port says whether it runs.
    const h = await p.health(port);
    if ("error" in h) return { ...base, kind: "down", text: h.error };
    return h.status === 200 ? { ...base, kind: "ok", text: "/healthz" } : { ...base, kind: "down", text: `/healthz answers ${h.status}` };
  }
  const a = await p.queryA(port, pick.name);
  if ("error" in a) return { ...base, kind: "down", text: a.error };
  if (a.rcode === "NOERROR" && a.addresses.length) return { ...base, kind: "ok", text: a.addresses.join(", ") };
  return { ...base, kind: "nodata", text: a.rcode === "NOERROR" ? "no address" : a.rcode };
}

/**
 * Asks every mesh DNS replica (replica `r` on LEVELRAIL_MESH_DNS_PORT + r; a single process is
 * replica 0) for a name it must know: ok when each answers it; warn when a replica is down but
 * another answers (Caddy asks the one that does) or when the name has no address; fail when none
 * answers.
 */
export async function meshDnsCheck(p: MeshProbe): Promise<CheckResult> {
  let state: DataPlaneState | null;
  try {
    state = p.state();
  } catch (err) {
    return fail("mesh-dns", `cannot read the data plane's state ${p.stateFile} (${reason(err)}): the worker rewrites it on its next pass`);
  }
  const pick = state ? knownName(state, p.shortName) : null;
  const replicas = await p.replicas();
  const answers = await Promise.all(replicas.map((r) => askReplica(p, r, pick)));
  const at = (a: ReplicaAnswer) => `127.0.0.1:${a.port}`;
  const list = (as: ReplicaAnswer[]) => as.map(at).join(" and ");
  const detail = { ...(pick ? { query: pick.name } : {}), replicas: answers.map((a) => ({ replica: a.replica, port: a.port, answer: a.kind, text: a.text })) };
  const down = answers.filter((a) => a.kind === "down");
  const up = answers.filter((a) => a.kind !== "down");
  const hint = replicas.length > 1 ? "the engine restarts its container (`docker ps -a`, `docker logs <container>`)" : "is it running? `npm start` starts it (its log: <data dir>/logs/dataplane.log)";
  if (up.length === 0) return fail("mesh-dns", `the mesh DNS does not answer on ${answers.map((a) => `${at(a)} (${a.text})`).join(", ")}: ${hint}`, detail);
  const downText = down.length ? `; ${down.map((a) => `${at(a)} does not answer (${a.text})`).join(", ")}: ${hint}` : "";
  const status = down.length || up.some((a) => a.kind === "nodata") ? warn : ok;
  if (!pick) {
    const services = state ? Object.keys(state.services).length : 0;
    const why = services ? "every service's mesh name is shared by another environment's" : "no service runs yet";
    return status("mesh-dns", `the data plane answers on ${list(up)} (/healthz); no name to ask: ${why}${downText}`, detail);
  }
  const nodata = up.filter((a) => a.kind === "nodata");
  if (nodata.length) {
    return warn(
      "mesh-dns",
      `the mesh DNS on ${list(nodata)} answers ${pick.name} with ${nodata[0]!.text}: the ${pick.what} is not running, or the mesh DNS has not read ${p.stateFile}; see the service's status${downText}`,
      detail,
    );
  }
  return status("mesh-dns", `answers ${pick.name} → ${up[0]!.text} on ${list(up)}${downText}`, detail);
}
