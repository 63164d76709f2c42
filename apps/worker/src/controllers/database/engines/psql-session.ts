import { randomBytes } from "node:crypto";
import { PassThrough, type Readable } from "node:stream";
import type { ExecPort, OutputStream } from "../ports";

/**
 * One `psql` process in a container, kept open with its stdin attached: SQL goes in as the session
 * goes on, and each `run` ends with an `\echo` of a random marker, so the lines before the marker
 * are that run's answer. psql stops at the first error (`ON_ERROR_STOP`), and then `run` rejects
 * with its stderr. Used to hold a transaction (an exported snapshot) open while a dump reads it.
 */
export class PsqlSession {
  private readonly marker = `--levelrail-${randomBytes(12).toString("hex")}--`;
  private ended: Promise<{ exitCode: number; stderrTail: string }> | null = null;

  private constructor(
    private readonly stdin: PassThrough,
    private readonly out: OutputStream,
    private readonly lines: LineReader,
    private readonly redact: (text: string) => string,
  ) {}

  /** Starts `argv` (a psql command line) with `env`; `redact` cleans its stderr before it goes into an error. */
  static async open(runtime: Pick<ExecPort, "execStream">, containerId: string, argv: string[], env: string[], redact: (text: string) => string): Promise<PsqlSession> {
    const stdin = new PassThrough();
    const out = await runtime.execStream(containerId, argv, { env, stdin });
    return new PsqlSession(stdin, out, new LineReader(out.stdout), redact);
  }

  /** Sends `sql` (complete statements) and resolves with the lines it printed. */
  async run(sql: string): Promise<string[]> {
    if (this.ended) throw new Error("the psql session has ended");
    this.stdin.write(`${sql}\n\\echo ${this.marker}\n`);
    const answer = await this.lines.until(this.marker);
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
      this.ended = this.out.done;
    }
    return this.ended;
  }
}

/** Splits a text stream into lines as they come, and answers the ones before a marker line. */
class LineReader {
  private buffered = "";
  private readonly lines: string[] = [];
  private ended = false;
  private discard = false;
  private wake: (() => void) | null = null;

  constructor(stream: Readable) {
    stream.setEncoding("utf8");
    stream.on("data", (text: string) => {
      if (this.discard) return;
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
      if (at >= 0) return this.lines.splice(0, at + 1).slice(0, at);
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
