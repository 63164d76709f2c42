import { type Duplex, finished, type Readable, Transform, type TransformCallback } from "node:stream";
import type Docker from "dockerode";
import { ExecStoppedError, abortReason, killExec } from "./exec-stop";

/** A process's output streaming out of a container, and how it ended. */
export interface OutputStream {
  /**
   * The process's stdout as bytes, with backpressure: a slow reader slows the process down, nothing
   * is buffered whole. It must be read (or destroyed) for `done` to settle. Destroying it does NOT
   * stop the process (the engine never kills an exec whose client left; it discards the rest of its
   * output until it ends by itself): stop it some other way, e.g. by ending its database session.
   */
  stdout: Readable;
  /**
   * Once the process ended: its exit code and the last few KiB of its stderr. Rejects when the
   * engine's connection fails, when `stdout` was destroyed before its end, when `stdin` failed (with
   * that error, once the process ended), and when the process still runs 10 s after its output ended.
   */
  done: Promise<{ exitCode: number; stderrTail: string }>;
}

export interface ExecStreamOptions {
  /** Extra `KEY=value` variables for the process (never logged). */
  env?: string[];
  /** `user`, `uid` or `uid:gid`; the image's user when unset. */
  user?: string;
  /**
   * Piped to the process's stdin; when it ends, the process sees EOF (the exec's connection is
   * half-closed). When it fails or closes early, the process sees EOF too and `done` rejects with its
   * error. If the process ends before reading it all, it is destroyed.
   */
  stdin?: Readable;
  /**
   * Stops it: once aborted, `stdout` errors, the process is killed where the worker can see it
   * (`killExec`), its input is destroyed, and `done` rejects with an `ExecStoppedError`.
   */
  signal?: AbortSignal;
}

/** How many bytes of stderr `done` keeps (the last ones). */
export const STDERR_TAIL_BYTES = 8 * 1024;
/** How long `done` waits, once the stream ended, for the engine to report the process ended. */
const EXIT_WAIT_MS = 10_000;

/**
 * Splits Docker's multiplexed exec/attach stream (8-byte frame headers: stream type, 3 zero bytes,
 * big-endian length) into stdout, which it passes on as its readable side, and a bounded tail of
 * stderr. It is a Transform, so backpressure holds: while its reader is behind, it stops taking
 * input, and the engine's socket stops being read.
 */
export class ExecDemuxer extends Transform {
  private readonly header = Buffer.alloc(8);
  private headerLen = 0;
  private remaining = 0;
  private kind = 0;
  private tail = Buffer.alloc(0);
  /** Set when the stream turned out not to be multiplexed. */
  broken: Error | null = null;

  constructor(private readonly tailBytes = STDERR_TAIL_BYTES) {
    super();
  }

  /** The last `tailBytes` bytes the process wrote to stderr, as text. */
  stderrTail(): string {
    return this.tail.toString("utf8");
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    let i = 0;
    while (i < chunk.length) {
      if (this.remaining === 0) {
        const n = Math.min(8 - this.headerLen, chunk.length - i);
        chunk.copy(this.header, this.headerLen, i, i + n);
        this.headerLen += n;
        i += n;
        if (this.headerLen < 8) break;
        this.headerLen = 0;
        this.kind = this.header[0]!;
        if (this.kind > 2) return callback((this.broken = new Error(`not a multiplexed stream (frame type ${this.kind})`)));
        this.remaining = this.header.readUInt32BE(4);
        continue;
      }
      const n = Math.min(this.remaining, chunk.length - i);
      const part = chunk.subarray(i, i + n);
      if (this.kind === 1) this.push(part);
      else if (this.kind === 2) this.keep(part);
      this.remaining -= n;
      i += n;
    }
    callback();
  }

  private keep(part: Buffer): void {
    const all = Buffer.concat([this.tail, part]);
    this.tail = all.length > this.tailBytes ? Buffer.from(all.subarray(all.length - this.tailBytes)) : all;
  }
}

/**
 * Runs argv in a running container (no shell) with its stdout as a byte stream (see `OutputStream`).
 * `docker` must have no request timeout: the process takes as long as it takes.
 */
export async function execStream(docker: Docker, id: string, argv: string[], opts: ExecStreamOptions = {}): Promise<OutputStream> {
  const input = opts.stdin;
  let inputError: Error | null = null;
  // Listen at once: an input failing while the exec is being set up must not go unheard.
  const onInputError = (err: Error) => (inputError ??= err);
  input?.on("error", onInputError);

  const ex = await docker.getContainer(id).exec({
    Cmd: argv,
    ...(opts.env ? { Env: opts.env } : {}),
    ...(opts.user ? { User: opts.user } : {}),
    AttachStdin: input !== undefined,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
  });
  const socket = (await ex.start({ hijack: true, stdin: input !== undefined })) as Duplex;
  const demux = new ExecDemuxer();
  // By hand rather than `pipeline`: a write to stdin that finds the process gone (EPIPE) ends the
  // output normally, so the stderr that explains why it went is kept.
  socket.on("data", (chunk: Buffer) => {
    if (!demux.writableEnded && !demux.write(chunk)) socket.pause();
  });
  demux.on("drain", () => socket.resume());
  socket.on("end", () => demux.end());
  let engineError: Error | null = null;
  socket.on("error", (err: NodeJS.ErrnoException) => {
    if (input && (err.code === "EPIPE" || err.code === "ECONNRESET")) demux.end();
    else demux.destroy((engineError = err));
  });
  demux.on("close", () => socket.destroy()); // read to the end, or given up on by its reader
  const streamed = new Promise<Error | null>((resolve) => finished(demux, (err) => resolve(err ?? null)));

  const { signal } = opts;
  const program = argv[0] ?? "exec";
  let stopped: Promise<ExecStoppedError> | null = null;
  const stop = () => {
    if (stopped) return;
    const reason = abortReason(signal!);
    stopped = killExec(ex, id).then((killed) => new ExecStoppedError(program, reason, killed));
    input?.destroy();
    demux.destroy(new ExecStoppedError(program, reason, true));
  };
  if (signal?.aborted) stop();
  else signal?.addEventListener("abort", stop, { once: true });

  if (input) {
    let closed = false;
    const eof = () => {
      if (closed) return;
      closed = true;
      input.unpipe(socket);
      if (!socket.destroyed) socket.end(); // half-close: the process sees EOF on stdin
    };
    const fail = (err: Error) => {
      onInputError(err);
      eof();
    };
    input.on("error", fail);
    input.on("end", () => (closed = true));
    input.on("close", () => {
      if (!input.readableEnded) fail(new Error("the input closed before its end"));
    });
    if (inputError !== null || input.errored || input.destroyed) fail(inputError ?? input.errored ?? new Error("the input was destroyed"));
    else input.pipe(socket);
  }

  const done = (async () => {
    const failed = await streamed;
    signal?.removeEventListener("abort", stop);
    if (stopped) throw await stopped;
    if (failed !== null) {
      input?.destroy();
      if (engineError !== null || demux.broken !== null) throw engineError ?? demux.broken;
      // Its reader gave up. That does not stop the process: the engine never kills an exec whose
      // client left, and from then on reports it ended (126) whether it did or not.
      throw new Error("the output was abandoned before its end; the process may still run", { cause: failed });
    }
    const exitCode = await exitCodeOf(ex);
    const inputFailure = inputError;
    if (input && !input.readableEnded && !input.destroyed) input.destroy(); // the process is gone: nobody reads the rest
    if (inputFailure !== null) throw inputFailure;
    return { exitCode, stderrTail: demux.stderrTail() };
  })();
  done.catch(() => {}); // settled by whoever awaits it; never an unhandled rejection
  return { stdout: demux, done };
}

/** The exec's exit code, polling briefly while the engine still reports it running. */
async function exitCodeOf(ex: Docker.Exec): Promise<number> {
  const deadline = Date.now() + EXIT_WAIT_MS;
  for (let wait = 20; ; wait = Math.min(wait * 2, 500)) {
    const info = await ex.inspect();
    if (!info.Running && info.ExitCode !== null) return info.ExitCode;
    if (Date.now() > deadline) throw new Error(`the process ${info.Running ? "still runs" : "has no exit code"} ${EXIT_WAIT_MS / 1000}s after its output ended`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** Reads Docker's multiplexed stream in order, calling `onChunk` with each frame's text (stdout and stderr alike). */
export function demuxStream(stream: NodeJS.ReadableStream, onChunk: (text: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    stream.on("data", (data: Buffer) => {
      buf = Buffer.concat([buf, data]);
      while (buf.length >= 8) {
        const len = buf.readUInt32BE(4);
        if (buf.length < 8 + len) break;
        onChunk(buf.subarray(8, 8 + len).toString("utf8"));
        buf = buf.subarray(8 + len);
      }
    });
    stream.on("end", () => resolve());
    stream.on("close", () => resolve());
    stream.on("error", reject);
  });
}

/** Strip Docker's 8-byte stream frame headers from a non-TTY log buffer. */
export function demuxLogs(buf: Buffer): string {
  const parts: string[] = [];
  let i = 0;
  while (i + 8 <= buf.length && (buf[i] === 1 || buf[i] === 2 || buf[i] === 0)) {
    const len = buf.readUInt32BE(i + 4);
    parts.push(buf.subarray(i + 8, i + 8 + len).toString("utf8"));
    i += 8 + len;
  }
  return i === 0 ? buf.toString("utf8") : parts.join("");
}
