/**
 * Each mesh DNS replica watches its sibling: a frozen replica (SIGSTOP, a stuck event loop) still
 * accepts TCP connections in the kernel, so a lookup sent to it waits out the resolver's whole
 * timeout. Killed, its connections are reset and new ones refused: the resolver's next try goes to
 * the other replica at once, and the engine's restart policy brings the killed one back.
 *
 * Rules: the sibling is watched only once it has answered (never while either side starts); it is
 * killed when it has given no answer for `deadMs` (when the kernel holds it stopped) or `hungDeadMs`
 * (when it is running or sleeping: starved, or hung) while we ourselves were awake (a stall of our own
 * event loop is no proof against the sibling), and only when its pid is known, is not ours, still
 * exists and is a data plane (a silence before its pid was learned falls back to the pid the sibling
 * recorded in its pid file). After a kill it must answer again (a new process) before the next.
 * A sibling that has just started gets `youngDeadMs` for its first `youngMs` of serving (a process
 * finishing its start-up may pause longer; killing it there again would keep it from ever coming up).
 */
export interface SiblingInfo {
  pid: number;
  /** Since its TCP port is up (null: not reported, an older version). */
  servingMs: number | null;
}

export interface WatchdogDeps {
  /** One DNS query to the sibling; resolves when it answered, rejects on no answer within `timeoutMs`. */
  probe(timeoutMs: number): Promise<void>;
  /** The sibling's pid and how long it has served, as it reports them (its `/healthz`); null when it does not say. */
  sibling(): Promise<SiblingInfo | null>;
  /**
   * The pid the sibling recorded when it started (its pid file), or null: the fallback when it fell
   * silent before we learned its pid from `/healthz` (a replica frozen right after a restart).
   */
  recordedPid(): number | null;
  /** Whether `pid` exists and its command line names the data plane. */
  isDataPlane(pid: number): boolean;
  /** Whether the kernel holds `pid` stopped (SIGSTOP, a tracer): it cannot answer until someone else acts. */
  stopped(pid: number): boolean;
  kill(pid: number): void;
  now(): number;
  log(line: string): void;
  ownPid: number;
}

export interface WatchdogTimings {
  intervalMs: number;
  probeTimeoutMs: number;
  deadMs: number;
  /** Re-ask the sibling's pid this often while it answers (it may have been replaced without a gap we saw). */
  pidRefreshMs: number;
  youngMs: number;
  youngDeadMs: number;
  /**
   * The patience for a sibling the kernel reports running or sleeping (not stopped): on a starved
   * host a healthy process can be silent for longer than `deadMs`, and killing it for that would
   * only restart it; a real hang (a busy or deadlocked loop) is killed after this.
   */
  hungDeadMs: number;
}

export const DEFAULT_TIMINGS: WatchdogTimings = { intervalMs: 50, probeTimeoutMs: 100, deadMs: 150, pidRefreshMs: 5000, youngMs: 3000, youngDeadMs: 1000, hungDeadMs: 1000 };

export class Watchdog {
  /**
   * When the last question the sibling answered was asked (null: none since it was last killed or
   * since we started). Counting from the question, not the answer, keeps the decision on the
   * probes' own beat: 150 ms after it is three questions in a row without an answer.
   */
  private lastAnswer: number | null = null;
  /** When the sibling process we watch started (as far as we know: at the latest, when it first answered). */
  private appearedAt = 0;
  private lastTick = 0;
  private pid: number | null = null;
  private pidAskedAt = 0;
  private asking = false;
  /** A probe answered after a silence: the sibling may be a new process. */
  private gap = true;
  private timer: NodeJS.Timeout | null = null;
  readonly kills: number[] = [];

  constructor(
    private readonly d: WatchdogDeps,
    private readonly t: WatchdogTimings = DEFAULT_TIMINGS,
  ) {}

  start(): void {
    this.lastTick = this.d.now();
    this.timer = setInterval(() => this.tick(), this.t.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  get siblingPid(): number | null {
    return this.pid;
  }

  /** One step: decide on what is known, then send the next probe. Public for tests. */
  tick(): void {
    const now = this.d.now();
    // Our own loop stalled (CPU starvation, a pause): the sibling's answers may be waiting unread.
    if (this.lastAnswer !== null && now - this.lastTick > this.t.intervalMs + this.t.deadMs / 2) this.lastAnswer = Math.max(this.lastAnswer, now - this.t.intervalMs);
    this.lastTick = now;
    this.decide(now);
    void this.d.probe(this.t.probeTimeoutMs).then(
      () => this.answered(now),
      () => {
        this.gap = true;
      },
    );
  }

  private answered(askedAt: number): void {
    const now = this.d.now();
    if (this.lastAnswer === null) this.appearedAt = now;
    this.lastAnswer = Math.max(this.lastAnswer ?? askedAt, askedAt);
    if (this.gap || this.pid === null || now - this.pidAskedAt >= this.t.pidRefreshMs) void this.learnPid(now);
    this.gap = false;
  }

  private async learnPid(now: number): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.pidAskedAt = now;
    try {
      const info = await this.d.sibling();
      if (info && info.pid !== this.pid) {
        const at = this.d.now();
        // Replaced (a newer version, or restarted between two probes): a new process, young again.
        if (info.servingMs !== null) this.appearedAt = at - info.servingMs;
        else if (this.pid !== null) this.appearedAt = at;
        this.pid = info.pid;
        this.d.log(`[watchdog] sibling is pid ${info.pid}`);
      }
    } catch {
      // asked again at the next answer after a gap, or at the next refresh
    } finally {
      this.asking = false;
    }
  }

  private decide(now: number): void {
    const young = now - this.appearedAt < this.t.youngMs;
    if (this.lastAnswer === null || now - this.lastAnswer < (young ? this.t.youngDeadMs : this.t.deadMs)) return;
    const pid = this.pid ?? this.d.recordedPid();
    // Silent but not stopped: starved rather than frozen, most likely. Wait longer before a kill.
    if (pid !== null && now - this.lastAnswer < this.t.hungDeadMs && this.d.isDataPlane(pid) && !this.d.stopped(pid)) return;
    const silentMs = Math.round(now - this.lastAnswer);
    this.lastAnswer = null; // one decision per silence: it must answer again to be watched again
    if (pid === null || pid === this.d.ownPid || pid <= 1) return;
    if (!this.d.isDataPlane(pid)) {
      this.d.log(`[watchdog] the sibling (pid ${pid}) gave no answer for ${silentMs} ms and is gone`);
      this.pid = null;
      return;
    }
    try {
      this.d.kill(pid);
      this.kills.push(pid);
      this.d.log(`[watchdog] the sibling (pid ${pid}) gave no answer for ${silentMs} ms: killed it (SIGKILL); the engine restarts it`);
    } catch (err) {
      this.d.log(`[watchdog] could not kill the sibling (pid ${pid}): ${err instanceof Error ? err.message : String(err)}`);
    }
    this.pid = null;
  }
}
