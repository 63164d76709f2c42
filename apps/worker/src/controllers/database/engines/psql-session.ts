import { randomBytes } from "node:crypto";
import { PassThrough, type Readable } from "node:stream";
import type { ExecPort, OutputStream } from "../ports";

/** What one session may take: how long each answer, how many bytes of it held at once. */
export interface PsqlLimits {
  /** The longest one `run` may wait for its answer (default 15 minutes). */
  answerMs?: number;
  /** The most bytes of one answer held in memory (default 16 MiB); past it the session is stopped. */
  maxAnswerBytes?: number;
  /** Stops the session at once (the worker stopping, or losing the lead). */
  signal?: AbortSignal;
}

export const PSQL_ANSWER_MS = 15 * 60_000;
export const PSQL_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/**
 * One `psql` process in a container, kept open with its stdin attached: SQL goes in as the session
 * goes on, and each `run` ends with an `\echo` of a random marker, so the lines before the marker
 * are that run's answer. psql stops at the first error (`ON_ERROR_STOP`), and then `run` rejects
 * with its stderr. Used to hold a transaction (an exported snapshot) open while a dump reads it.
 * The psql is the tenant image's: an answer that does not come within `answerMs`, or that grows
 * past `maxAnswerBytes` (what is held is dropped: the answer is truncated, never kept), stops the
 * session (exec dropped, process killed where the worker can see it) and `run` rejects saying so.
 */
export class PsqlSession {
  private readonly marker = `--levelrail-${randomBytes(12).toString("hex")}--`;
  private ended: Promise<{ exitCode: number; stderrTail: string }> | null = null;

  private constructor(
    private readonly stdin: PassThrough,
    private readonly out: OutputStream,
    private readonly lines: LineReader,
    private readonly redact: (text: string) => string,
    private readonly stop: AbortController,
    private readonly answerMs: number,
  ) {}

  /** Starts `argv` (a psql command line) with `env`; `redact` cleans its stderr before it goes into an error. */
  static async open(
    runtime: Pick<ExecPort, "execStream">,
    containerId: string,
    argv: string[],
    env: string[],
    redact: (text: string) => string,
    limits: PsqlLimits = {},
  ): Promise<PsqlSession> {
    const stdin = new PassThrough();
    const stop = new AbortController();
    const signal = limits.signal ? AbortSignal.any([stop.signal, limits.signal]) : stop.signal;
    const out = await runtime.execStream(containerId, argv, { env, stdin, signal });
    const max = limits.maxAnswerBytes ?? PSQL_MAX_ANSWER_BYTES;
    const lines = new LineReader(out.stdout, max, () => stop.abort(new Error(`psql printed more than ${mib(max)} without ending its answer; the output was truncated`)));
    return new PsqlSession(stdin, out, lines, redact, stop, limits.answerMs ?? PSQL_ANSWER_MS);
  }

  /** Sends `sql` (complete statements) and resolves with the lines it printed. */
  async run(sql: string): Promise<string[]> {
    if (this.ended) throw new Error("the psql session has ended");
    this.stdin.write(`${sql}\n\\echo ${this.marker}\n`);
    const late = setTimeout(() => this.stop.abort(new Error(`psql gave no answer within ${Math.round(this.answerMs / 1000)} s`)), this.answerMs);
    let answer: string[] | null;
    try {
      answer = await this.lines.until(this.marker);
    } finally {
      clearTimeout(late);
    }
    if (answer !== null) return answer;
    const { exitCode, stderrTail } = await this.finish();
    throw new Error(`psql failed (exit ${exitCode}): ${this.redact(stderrTail).trim() || "no output"}`);
  }

  /** Sends `last` (if any), ends the input (psql exits at EOF) and waits for the process; safe to call twice. */
  close(last?: string): Promise<{ exitCode: number; stderrTail: string }> {
    if (!this.ended && last !== undefined && !this.stdin.writableEnded) this.stdin.write(`${last}\n`);
    return this.finish();
  }

  private finish(): Promise<{ exitCode: number; stderrTail: string }> {
    if (!this.ended) {
      this.stdin.end();
      this.lines.drain();
      // psql that does not go at EOF within the deadline is stopped too.
      const late = setTimeout(() => this.stop.abort(new Error(`psql did not exit within ${Math.round(this.answerMs / 1000)} s of its input's end`)), this.answerMs);
      this.ended = this.out.done.finally(() => clearTimeout(late));
    }
    return this.ended;
  }
}

const mib = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${bytes} bytes`);

/** Splits a text stream into lines as they come, and answers the ones before a marker line. */
class LineReader {
  private buffered = "";
  private readonly lines: string[] = [];
  private ended = false;
  private discard = false;
  private wake: (() => void) | null = null;

  /** Bytes held (lines not yet answered and the partial line). */
  private held = 0;

  /** Past `maxBytes` held, everything held is dropped and `overflow` is called (once). */
  constructor(stream: Readable, maxBytes: number, overflow: () => void) {
    stream.setEncoding("utf8");
    stream.on("data", (text: string) => {
      if (this.discard) return;
      this.held += text.length;
      if (this.held > maxBytes) {
        this.drain();
        overflow();
        return this.notify();
      }
      this.buffered += text;
      const parts = this.buffered.split("\n");
      this.buffered = parts.pop() ?? "";
      this.lines.push(...parts);
      this.notify();
    });
    const end = () => {
      this.ended = true;
      this.notify();
    };
    stream.on("end", end);
    stream.on("error", end);
    stream.on("close", end);
  }

  /** The lines before the next `marker` line (consumed with it), or null if the stream ended first. */
  async until(marker: string): Promise<string[] | null> {
    for (;;) {
      const at = this.lines.indexOf(marker);
      if (at >= 0) {
        const answer = this.lines.splice(0, at + 1).slice(0, at);
        this.held = this.buffered.length + this.lines.reduce((n, l) => n + l.length + 1, 0);
        return answer;
      }
      if (this.discard) return null;
      if (this.ended) return null;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Forgets what is buffered and what is still to come (the stream keeps flowing). */
  drain(): void {
    this.discard = true;
    this.lines.length = 0;
    this.buffered = "";
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
