import type { Redactor } from "@levelrail/spec/redact";
import type { BuildStore } from "./ports";

/** The most lines one build keeps; past it, one line says how many were left out. */
export const MAX_LOG_LINES = 20_000;
const MAX_LINE = 4_000;

/**
 * A build's log as it is written: each line redacted, then stored in small batches (every 250 ms or
 * 200 lines), so a follower sees it live without one write per line.
 */
export class BuildLogWriter {
  private pending: string[] = [];
  private seq = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;

  constructor(
    private readonly store: Pick<BuildStore, "appendLog">,
    private readonly buildId: string,
    private readonly redact: Redactor,
  ) {}

  line(text: string): void {
    if (this.seq + this.pending.length >= MAX_LOG_LINES) {
      this.dropped++;
      return;
    }
    const clean = this.redact(text.replace(/\r$/, ""));
    this.pending.push(clean.length > MAX_LINE ? `${clean.slice(0, MAX_LINE)}…` : clean);
    if (this.pending.length >= 200) this.flushSoon(0);
    else this.flushSoon(250);
  }

  private flushSoon(ms: number): void {
    if (this.timer && ms > 0) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.write();
    }, ms);
  }

  private write(): void {
    const lines = this.pending.splice(0);
    if (!lines.length) return;
    const from = this.seq + 1;
    this.seq += lines.length;
    this.chain = this.chain.then(() => this.store.appendLog(this.buildId, from, lines)).catch((err: unknown) => {
      this.failure ??= err;
    });
  }

  /** Writes what is left (and how many lines were left out); throws the first write that failed. */
  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dropped) this.pending.push(`… ${this.dropped} more lines left out (a build keeps ${MAX_LOG_LINES})`);
    this.dropped = 0;
    this.write();
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
