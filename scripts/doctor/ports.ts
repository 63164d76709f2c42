// The ingress ports (80/443 by default) must be held by our Caddy: the container labelled as this
// installation's ingress (the engine supervises it), or the process in `<data dir>/caddy/caddy.pid`.
import { type PortListeners, type Proc, type ProcFs, descendsFrom, portListeners } from "./procfs";
import { type CheckResult, fail, ok, warn } from "./result";

export interface OurCaddy {
  /** Host pids of our Caddy: each running ingress container's `State.Pid`, and the pid file's live Caddy. */
  pids: Set<number>;
  /** Where those came from, for the message (`container lrdoc-caddy`, `pid file …`). */
  sources: string[];
}

export interface PortProbe {
  listeners(port: number): PortListeners;
  ourCaddy(): Promise<OurCaddy>;
  /** Whether a holder is (or runs under) one of our Caddy's pids. */
  isOurs(pid: number, ours: ReadonlySet<number>): boolean;
}

export function procPortProbe(fs: ProcFs, ourCaddy: () => Promise<OurCaddy>): PortProbe {
  return { listeners: (port) => portListeners(fs, port), ourCaddy, isOurs: (pid, ours) => descendsFrom(fs, pid, ours) };
}

export interface PortSpec {
  /** `port-http`, `port-https`. */
  name: string;
  port: number;
  /** The variable that moves it: `LEVELRAIL_INGRESS_HTTP_PORT`. */
  variable: string;
}

const named = (p: Proc) => `${p.name} (pid ${p.pid})`;

/** Pure: the verdict on one port, given who holds it and which of them are our Caddy. */
export function portVerdict(spec: PortSpec, l: PortListeners, ours: (p: Proc) => boolean, caddy: OurCaddy): CheckResult {
  const { name, port, variable } = spec;
  const detail = { port, holders: l.holders.map((h) => ({ ...h, ours: ours(h) })) };
  if (!l.listening) {
    const hint = caddy.pids.size ? `our Caddy (pid ${[...caddy.pids].join(", ")}) runs but does not serve it yet (the worker loads its config)` : "Caddy is not running: `npm start` starts it";
    return warn(name, `nothing listens on port ${port}: ${hint}`, detail);
  }
  const others = l.holders.filter((h) => !ours(h));
  if (others.length) {
    const who = others.map(named).join(" and ");
    const caddyHint = others.some((h) => h.name === "caddy") ? " (the OS's own caddy.service? `systemctl disable --now caddy`)" : "";
    return fail(name, `port ${port} is held by ${who}, not by Levelrail's Caddy${caddyHint}: stop it, or set ${variable} to a free port`, detail);
  }
  if (l.holders.length === 0) return warn(name, `port ${port} is listened on by a process doctor cannot see (${l.unseen} socket${l.unseen === 1 ? "" : "s"}): run doctor as root to name it`, detail);
  return ok(name, `held by our Caddy: ${l.holders.map(named).join(", ")}${caddy.sources.length ? ` (${caddy.sources.join(", ")})` : ""}`, detail);
}

export async function portCheck(spec: PortSpec, p: PortProbe): Promise<CheckResult> {
  const caddy = await p.ourCaddy();
  return portVerdict(spec, p.listeners(spec.port), (h) => p.isOurs(h.pid, caddy.pids), caddy);
}
