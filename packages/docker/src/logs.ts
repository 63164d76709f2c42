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

/**
 * On a swarm manager a release is a swarm service whose tasks run on any node, where this engine
 * lists no container: the service itself is what the reader lists (its id prefixed with this), its
 * lines those of all its tasks (the engine's `/services/{id}/logs`, which the manager gathers from
 * every node).
 */
export const SWARM_SERVICE_PREFIX = "swarm-service:";

/** The label the engine puts on a swarm task's container: such a container is read through its service. */
const TASK_LABEL = "com.docker.swarm.service.id";

/** How long an answer that this engine is no swarm manager is believed before it is asked again. */
const NOT_MANAGER_MS = 30_000;

/** How long a line of a service's merged stream waits for a line of another task printed before it. */
export const MERGE_HOLD_MS = 250;

type EngineService = { ID: string; CreatedAt?: string; Spec?: { Name?: string; Labels?: Record<string, string> | null; TaskTemplate?: { ContainerSpec?: { Env?: string[] | null } } } };
type EngineTask = { DesiredState?: string; Status?: { State?: string } };

/** Pure: a swarm service as the reader lists it, from its tasks' states. */
export function serviceLogContainer(svc: EngineService, tasks: readonly EngineTask[]): LogContainer {
  const meant = tasks.filter((t) => t.DesiredState === "running" || t.DesiredState === "complete");
  const running = meant.filter((t) => t.Status?.State === "running").length;
  const ended = meant.length > 0 && meant.every((t) => t.Status?.State === "complete");
  return {
    id: `${SWARM_SERVICE_PREFIX}${svc.ID}`,
    name: svc.Spec?.Name ?? svc.ID,
    state: running > 0 ? "running" : ended ? "exited" : meant.length > 0 ? "created" : "exited",
    status: ended ? "Completed" : `${running} of ${meant.length} task${meant.length === 1 ? "" : "s"} running`,
    labels: { ...(svc.Spec?.Labels ?? {}) },
    createdAt: svc.CreatedAt ? Date.parse(svc.CreatedAt) || 0 : 0,
  };
}

/**
 * Lines of several tasks merged by the engine as they arrive, put in time order: each waits up to
 * `holdMs` for a line of another task stamped before it (one later still would be out of order, and
 * a follower drops what is older than what it sent). Ends with whatever is held, in order.
 */
export async function* inTimeOrder(source: AsyncIterable<LogLine>, holdMs = MERGE_HOLD_MS): AsyncGenerator<LogLine> {
  const it = source[Symbol.asyncIterator]();
  const held: { line: LogLine; until: number }[] = [];
  const TICK = Symbol("tick");
  let pending: Promise<IteratorResult<LogLine>> | null = null;
  try {
    for (;;) {
      pending ??= it.next();
      let timer: NodeJS.Timeout | undefined;
      const first = held.length ? Math.min(...held.map((h) => h.until)) : null;
      const r =
        first === null
          ? await pending
          : await Promise.race([pending, new Promise<typeof TICK>((res) => (timer = setTimeout(() => res(TICK), Math.max(0, first - Date.now()))))]);
      clearTimeout(timer);
      if (r !== TICK) {
        pending = null;
        if (r.done) break;
        // Sorted by time (stable: lines of one task keep their order).
        let i = held.length;
        while (i > 0 && held[i - 1]!.line.at > r.value.at) i--;
        held.splice(i, 0, { line: r.value, until: Date.now() + holdMs });
      }
      // Everything up to the newest line whose wait is over goes, in order.
      const now = Date.now();
      let last = -1;
      held.forEach((h, i) => {
        if (h.until <= now) last = i;
      });
      for (const h of held.splice(0, last + 1)) yield h.line;
    }
    for (const h of held.splice(0)) yield h.line;
  } finally {
    await it.return?.();
  }
}

/** The read-only log port on dockerode. `DOCKER_HOST` is read by the caller and passed in. */
export function dockerLogReader(opts: { dockerHost?: string | undefined } = {}): LogReader {
  const docker = new Docker(opts.dockerHost ? parseDockerHost(opts.dockerHost) : {});
  let notManagerUntil = 0;
  /** The swarm services matching the filters; none when this engine is no swarm manager. */
  const services = async (labelFilters: string[]): Promise<LogContainer[]> => {
    if (Date.now() < notManagerUntil) return [];
    let list: EngineService[];
    try {
      list = (await docker.listServices({ filters: JSON.stringify({ label: labelFilters }) } as never)) as unknown as EngineService[];
    } catch (err) {
      // 503: not a swarm manager (a single engine, a worker node).
      if (statusOf(err) !== 503) throw err;
      notManagerUntil = Date.now() + NOT_MANAGER_MS;
      return [];
    }
    return Promise.all(
      list.map(async (svc) => {
        const tasks = (await docker.listTasks({ filters: JSON.stringify({ service: [svc.ID] }) } as never)) as unknown as (EngineTask & { ServiceID?: string })[];
        return serviceLogContainer(svc, tasks.filter((t) => t.ServiceID === svc.ID));
      }),
    );
  };
  return {
    async containers(labelFilters) {
      const [list, swarm] = await Promise.all([docker.listContainers({ all: true, filters: { label: labelFilters } }), services(labelFilters)]);
      const containers = list
        // A swarm task's container is read through its service (which has its tasks on every node).
        .filter((c) => !(swarm.length > 0 && c.Labels?.[TASK_LABEL]))
        .map((c) => ({ id: c.Id, name: (c.Names[0] ?? "").replace(/^\//, ""), state: c.State, status: c.Status, labels: c.Labels ?? {}, createdAt: c.Created * 1000 }));
      return [...containers, ...swarm];
    },
    async env(containerId) {
      try {
        if (containerId.startsWith(SWARM_SERVICE_PREFIX)) {
          const svc = (await docker.getService(containerId.slice(SWARM_SERVICE_PREFIX.length)).inspect()) as EngineService;
          return envRecord(svc.Spec?.TaskTemplate?.ContainerSpec?.Env ?? []);
        }
        return envRecord((await docker.getContainer(containerId).inspect()).Config.Env ?? []);
      } catch (err) {
        if (statusOf(err) === 404) return {};
        throw err;
      }
    },
    async *lines(containerId, o) {
      if (o.signal?.aborted) return;
      const service = containerId.startsWith(SWARM_SERVICE_PREFIX) ? containerId.slice(SWARM_SERVICE_PREFIX.length) : null;
      const options: Record<string, string | number | boolean> = { stdout: true, stderr: true, timestamps: true, follow: o.follow };
      if (o.tail !== undefined) options.tail = o.tail;
      if (o.since !== undefined) options.since = engineSince(o.since);
      let stream: Readable;
      try {
        // Through the modem so that a non-following read is a stream too (dockerode buffers it whole).
        stream = await new Promise<Readable>((resolve, reject) =>
          docker.modem.dial(
            {
              path: service ? `/services/${encodeURIComponent(service)}/logs?` : `/containers/${encodeURIComponent(containerId)}/logs?`,
              method: "GET",
              options,
              isStream: true,
              statusCodes: { 200: true, 404: service ? "no such service" : "no such container", 500: "server error", 503: "not a swarm manager" },
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
        const lines = framesToLines(quiet(stream));
        // Not following, the engine sends what it has at once: a longer hold costs nothing and orders more.
        for await (const line of service ? inTimeOrder(lines, o.follow ? MERGE_HOLD_MS : 4 * MERGE_HOLD_MS) : lines) yield line;
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
