import { LineRedactor } from "@levelrail/spec/redact-lines";
import type { BuildStore } from "./ports";

/** The most lines one build keeps; past it, one line says how many were left out. */
export const MAX_LOG_LINES = 20_000;
const MAX_LINE = 4_000;
/** How long a line that could begin a secret waits for the next one before it is stored as it is (the container logs' hold). */
export const HOLD_MS = 1_000;

/**
 * A build's log as it is written: redacted as the container logs are, across lines (a multi-line
 * value, a PEM key, printed by a RUN step is found whole: `LineRedactor`), then stored in small
 * batches (every 250 ms or 200 lines), so a follower sees it live without one write per line. A
 * line whose end could begin a secret waits for the next line, or `holdMs` of quiet.
 */
export class BuildLogWriter {
  private pending: string[] = [];
  private seq = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | null = null;
  private held: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private readonly redactor: LineRedactor<{ line: string }>;

  /** `secrets`: every value to keep out of the log (the service's sensitive environment, the git credential). */
  constructor(
    private readonly store: Pick<BuildStore, "appendLog">,
    private readonly buildId: string,
    secrets: readonly string[],
    private readonly holdMs = HOLD_MS,
  ) {
    this.redactor = new LineRedactor(secrets);
  }

  line(text: string): void {
    this.take(this.redactor.push({ line: text.replace(/\r$/, "") }));
    if (!this.redactor.holding) {
      if (this.held) clearTimeout(this.held);
      this.held = null;
    } else {
      this.held ??= setTimeout(() => {
        this.held = null;
        this.take(this.redactor.flush());
      }, this.holdMs);
    }
  }

  /** Lines the redactor let go (redacted), kept up to MAX_LOG_LINES and MAX_LINE characters each. */
  private take(lines: { line: string }[]): void {
    for (const { line: clean } of lines) {
      if (this.seq + this.pending.length >= MAX_LOG_LINES) {
        this.dropped++;
        continue;
      }
      this.pending.push(clean.length > MAX_LINE ? `${clean.slice(0, MAX_LINE)}…` : clean);
    }
    if (!lines.length) return;
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
    if (this.held) clearTimeout(this.held);
    this.held = null;
    this.take(this.redactor.flush());
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.dropped) this.pending.push(`… ${this.dropped} more lines left out (a build keeps ${MAX_LOG_LINES})`);
    this.dropped = 0;
    this.write();
    await this.chain;
    if (this.failure) throw this.failure;
  }
}
