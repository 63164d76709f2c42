import { connect } from "node:net";
import type { DataPlaneState } from "@levelrail/spec/dataplane";

/** One TCP connect to `address:port`: true when it is accepted within `timeoutMs`. */
export function connects(address: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: address, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export interface LivenessOptions {
  intervalMs?: number;
  timeoutMs?: number;
  connect?: (address: string, port: number, timeoutMs: number) => Promise<boolean>;
  log: (line: string) => void;
}

/**
 * On a swarm, the data plane's own check of the tasks it names (docs/operating/nodes-and-swarm.md). A task whose node
 * was lost, or whose engine restarts, leaves an address that swallows connects, and the worker may
 * not say so for a while (its manager may be the one restarting); Caddy's passive health checks do
 * not cover upstreams it looks up per request. So every second each task of the state gets a TCP
 * connect; one that failed the last is left out of the answers (`AnswerContext.live`) until one
 * succeeds again. Containers on one engine are not probed.
 */
export class TaskLiveness {
  private targets: { address: string; port: number }[] = [];
  private readonly dead = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly o: LivenessOptions) {}

  /** The tasks to probe: every swarm task of the state (forgetting the ones gone). */
  setState(state: DataPlaneState): void {
    const seen = new Map<string, { address: string; port: number }>();
    for (const e of Object.values(state.services)) for (const t of e.tasks ?? []) seen.set(`${t.address}:${e.port}`, { address: t.address, port: e.port });
    this.targets = [...seen.values()];
    for (const k of this.dead) if (!seen.has(k)) this.dead.delete(k);
  }

  isLive(address: string, port: number): boolean {
    return !this.dead.has(`${address}:${port}`);
  }

  /** One round of probes (all at once). */
  async probe(): Promise<void> {
    const connectTo = this.o.connect ?? connects;
    await Promise.all(
      this.targets.map(async (t) => {
        const key = `${t.address}:${t.port}`;
        const ok = await connectTo(t.address, t.port, this.o.timeoutMs ?? 1000);
        if (!ok && !this.dead.has(key)) {
          this.dead.add(key);
          this.o.log(`[live] task ${key} does not answer: left out of the answers until it does`);
        } else if (ok && this.dead.delete(key)) {
          this.o.log(`[live] task ${key} answers again`);
        }
      }),
    );
  }

  /**
   * Probes every interval; resolves once the first round is done (at most the probe timeout), so a
   * replica that starts does not name a dead task before it has asked (a new replica beside an old
   * one that knew: an agent's upgrade after a node's engine restarted).
   */
  start(): Promise<void> {
    let first!: () => void;
    const probed = new Promise<void>((done) => (first = done));
    const loop = async () => {
      if (this.stopped) return first();
      if (this.targets.length > 0) await this.probe().catch(() => {});
      first();
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.o.intervalMs ?? 1000);
      this.timer?.unref();
    };
    void loop();
    return probed;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
