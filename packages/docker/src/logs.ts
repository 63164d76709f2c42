import type { Readable } from "node:stream";
import Docker from "dockerode";
import { statusOf } from "./engine-errors";
import { envRecord } from "./env";
import { parseDockerHost } from "./host";

/**
 * The read-only log port: what the web app may ask of the engine (list a service's containers by
 * its labels, read a container's logs). Nothing here changes Docker.
 */

/** One line a container printed, stamped by the engine. */
export interface LogLine {
  stream: "stdout" | "stderr";
  /** The engine's time of the line: RFC 3339 in UTC with exactly nine fraction digits, so it sorts as text. */
  at: string;
  line: string;
  /** Printed with no newline after it: the engine cut a longer line here (16 KiB frames); the next line goes on with it. */
  partial?: true;
}

export interface LogReadOptions {
  /** Keep the stream open for what the container prints next (until it stops). */
  follow: boolean;
  /** Only the last this many lines (of those since `since`); all when unset. */
  tail?: number | undefined;
  /** Only lines at or after this time (an `at`, or any ISO time). */
  since?: string | undefined;
  /** Aborting ends the stream to the engine; the iteration then ends. */
  signal?: AbortSignal | undefined;
}

/** A container of a service as the engine's list shows it. */
export interface LogContainer {
  id: string;
  name: string;
  state: string;
  /** The engine's human status (`Up 5 minutes`, `Exited (0) 3 seconds ago`). */
  status: string;
  labels: Record<string, string>;
  /** Milliseconds since epoch (second precision). */
  createdAt: number;
}

export interface LogReader {
  /** Every container matching the label filters, in any state (one engine call). */
  containers(labelFilters: string[]): Promise<LogContainer[]>;
  /**
   * The container's lines, oldest first, pulled from the engine as they are read: a slow reader
   * stops the engine's socket being read, nothing piles up. Ends when the logs end (not following:
   * at once; following: when the container stops), when `signal` aborts, or when the container is gone.
   */
  lines(containerId: string, opts: LogReadOptions): AsyncGenerator<LogLine>;
  /** The container's environment as it was created with it (`KEY` → value), so that its own secret values can be redacted; {} when it is gone. */
  env(containerId: string): Promise<Record<string, string>>;
}

/** A line longer than this is cut there (the engine splits long lines at 16 KiB itself). */
export const MAX_LINE_CHARS = 16 * 1024;

/** `2026-01-02T03:04:05.1Z` → `2026-01-02T03:04:05.100000000Z`; null when it is not an RFC 3339 UTC time. */
export function fixedTime(ts: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z$/.exec(ts);
  if (!m) return null;
  return `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}Z`;
}

/** An ISO time as the engine's `since`: Unix seconds with nine fraction digits (exact, no float rounding). */
export function engineSince(iso: string): string {
  const fixed = fixedTime(iso) ?? fixedTime(new Date(iso).toISOString());
  if (!fixed) throw new Error(`not a time: ${iso}`);
  const seconds = Math.floor(Date.parse(`${fixed.slice(0, 19)}Z`) / 1000);
  return `${seconds}.${fixed.slice(20, 29)}`;
}

/** Splits `<timestamp> <text>` into a line; text without a timestamp keeps `fallbackAt`. */
export function parseLine(raw: string, stream: LogLine["stream"], fallbackAt: string): LogLine {
  const text = raw.endsWith("\n") ? raw.slice(0, raw.endsWith("\r\n") ? -2 : -1) : raw;
  const space = text.indexOf(" ");
  const at = space > 0 ? fixedTime(text.slice(0, space)) : null;
  const body = at ? text.slice(space + 1) : text;
  const line = { stream, at: at ?? fallbackAt, line: body.length > MAX_LINE_CHARS ? `${body.slice(0, MAX_LINE_CHARS)}…` : body };
  return raw.endsWith("\n") ? line : { ...line, partial: true };
}

/**
 * Reads Docker's log stream (8-byte frame headers: stream type, 3 zero bytes, big-endian length;
 * with timestamps each frame is one message) as lines. A stream that is not multiplexed (a TTY
 * container's) is split on newlines. It holds at most one frame (or one capped line) in memory.
 */
export async function* framesToLines(source: AsyncIterable<Buffer>): AsyncGenerator<LogLine> {
  let buf: Buffer = Buffer.alloc(0);
  let raw: boolean | null = null;
  let lastAt = new Date(0).toISOString().replace(".000Z", ".000000000Z");
  const emit = (text: string, stream: LogLine["stream"]): LogLine[] => {
    const out: LogLine[] = [];
    for (const piece of text.split(/(?<=\n)/)) {
      if (piece === "") continue;
      const l = parseLine(piece, stream, lastAt);
      lastAt = l.at;
      out.push(l);
    }
    return out;
  };
  for await (const chunk of source) {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    raw ??= buf[0] !== undefined && buf[0] > 2;
    if (raw) {
      const nl = buf.lastIndexOf(0x0a);
      if (nl >= 0) {
        yield* emit(buf.subarray(0, nl + 1).toString("utf8"), "stdout");
        buf = buf.subarray(nl + 1);
      }
      if (buf.length > MAX_LINE_CHARS * 4) {
        yield* emit(buf.toString("utf8"), "stdout");
        buf = Buffer.alloc(0);
      }
      continue;
    }
    while (buf.length >= 8) {
      const len = buf.readUInt32BE(4);
      if (buf.length < 8 + len) break;
      const stream = buf[0] === 2 ? "stderr" : "stdout";
      const payload = buf.subarray(8, 8 + len).toString("utf8");
      buf = buf.subarray(8 + len);
      yield* emit(payload, stream);
    }
  }
  if (raw && buf.length > 0) yield* emit(buf.toString("utf8"), "stdout");
}

/** The read-only log port on dockerode. `DOCKER_HOST` is read by the caller and passed in. */
export function dockerLogReader(opts: { dockerHost?: string | undefined } = {}): LogReader {
  const docker = new Docker(opts.dockerHost ? parseDockerHost(opts.dockerHost) : {});
  return {
    async containers(labelFilters) {
      const list = await docker.listContainers({ all: true, filters: { label: labelFilters } });
      return list.map((c) => ({ id: c.Id, name: (c.Names[0] ?? "").replace(/^\//, ""), state: c.State, status: c.Status, labels: c.Labels ?? {}, createdAt: c.Created * 1000 }));
    },
    async env(containerId) {
      try {
        return envRecord((await docker.getContainer(containerId).inspect()).Config.Env ?? []);
      } catch (err) {
        if (statusOf(err) === 404) return {};
        throw err;
      }
    },
    async *lines(containerId, o) {
      if (o.signal?.aborted) return;
      const options: Record<string, string | number | boolean> = { stdout: true, stderr: true, timestamps: true, follow: o.follow };
      if (o.tail !== undefined) options.tail = o.tail;
      if (o.since !== undefined) options.since = engineSince(o.since);
      let stream: Readable;
      try {
        // Through the modem so that a non-following read is a stream too (dockerode buffers it whole).
        stream = await new Promise<Readable>((resolve, reject) =>
          docker.modem.dial(
            {
              path: `/containers/${encodeURIComponent(containerId)}/logs?`,
              method: "GET",
              options,
              isStream: true,
              statusCodes: { 200: true, 404: "no such container", 500: "server error" },
            },
            (err: unknown, s: unknown) => (err ? reject(err as Error) : resolve(s as Readable)),
          ),
        );
      } catch (err) {
        if (statusOf(err) === 404) return;
        throw err;
      }
      const abort = () => stream.destroy();
      if (o.signal?.aborted) return void abort();
      o.signal?.addEventListener("abort", abort, { once: true });
      try {
        for await (const line of framesToLines(quiet(stream))) yield line;
      } finally {
        o.signal?.removeEventListener("abort", abort);
        stream.destroy();
      }
    },
  };
}

/** The stream's chunks; destroying it (an abort) ends the iteration instead of failing it. */
async function* quiet(stream: Readable): AsyncGenerator<Buffer> {
  try {
    for await (const chunk of stream) yield chunk as Buffer;
  } catch (err) {
    if (!stream.destroyed || (err as { code?: string }).code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
  }
}
