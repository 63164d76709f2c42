// The ingress ports (80/443 by default) must be held by our Caddy: the container labelled as this
// installation's ingress (the engine supervises it), or the process in `<data dir>/caddy/caddy.pid`.
import { type PortListeners, type Proc, type ProcFs, portListeners, rootAmong } from "./procfs";
import { type CheckResult, fail, ok, warn } from "./result";

export interface OurCaddy {
  /**
   * Host pids of our Caddy, each with where it was found: every running ingress container's
   * `State.Pid` (`container lrdoc-caddy`) and the pid file's live Caddy (`pid file …`).
   */
  pids: Map<number, string>;
}

export interface PortProbe {
  listeners(port: number): PortListeners;
  ourCaddy(): Promise<OurCaddy>;
  /** The one of our Caddy's pids a holder is or runs under, or null. */
  ourRoot(pid: number, ours: ReadonlySet<number>): number | null;
}

export function procPortProbe(fs: ProcFs, ourCaddy: () => Promise<OurCaddy>): PortProbe {
  return { listeners: (port) => portListeners(fs, port), ourCaddy, ourRoot: (pid, ours) => rootAmong(fs, pid, ours) };
}

export interface PortSpec {
  /** `port-http`, `port-https`. */
  name: string;
  port: number;
  /** The variable that moves it: `LEVELRAIL_INGRESS_HTTP_PORT`. */
  variable: string;
}

const named = (p: Proc) => `${p.name} (pid ${p.pid})`;

/** Pure: the verdict on one port, given who holds it and, for each holder, where it is our Caddy from (null: not ours). */
export function portVerdict(spec: PortSpec, l: PortListeners, ours: (p: Proc) => string | null, caddy: OurCaddy): CheckResult {
  const { name, port, variable } = spec;
  const detail = { port, holders: l.holders.map((h) => ({ ...h, ours: ours(h) !== null })) };
  if (!l.listening) {
    const hint = caddy.pids.size ? `our Caddy (pid ${[...caddy.pids.keys()].join(", ")}) runs but does not serve it yet (the worker loads its config)` : "Caddy is not running: `npm start` starts it";
    return warn(name, `nothing listens on port ${port}: ${hint}`, detail);
  }
  const others = l.holders.filter((h) => ours(h) === null);
  if (others.length) {
    const who = others.map(named).join(" and ");
    const caddyHint = others.some((h) => h.name === "caddy") ? " (the OS's own caddy.service? `systemctl disable --now caddy`)" : "";
    return fail(name, `port ${port} is held by ${who}, not by Levelrail's Caddy${caddyHint}: stop it, or set ${variable} to a free port`, detail);
  }
  if (l.holders.length === 0) return warn(name, `port ${port} is listened on by a process doctor cannot see (${l.unseen} socket${l.unseen === 1 ? "" : "s"}): run doctor as root to name it`, detail);
  return ok(name, `held by our Caddy: ${l.holders.map((h) => `${h.name} (pid ${h.pid}, ${ours(h)})`).join("; ")}`, detail);
}

export async function portCheck(spec: PortSpec, p: PortProbe): Promise<CheckResult> {
  const caddy = await p.ourCaddy();
  const roots = new Set(caddy.pids.keys());
  return portVerdict(
    spec,
    p.listeners(spec.port),
    (h) => {
      const root = p.ourRoot(h.pid, roots);
      return root === null ? null : (caddy.pids.get(root) ?? null);
    },
    caddy,
  );
}
