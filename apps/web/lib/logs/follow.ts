import type { LogContainer, LogLine, LogReader } from "@levelrail/docker/logs";
import { Labels, isPreDeployContainer } from "@levelrail/spec/naming";
import { redactedLines } from "./redacted";

/** A line as the API gives it: which container printed it, on which stream, when, and what. */
export interface LogLineEvent extends LogLine {
  type: "line";
  container: string;
}

/** Where a followed stream moved to another container: the deploy's switch. */
export interface LogMarkerEvent {
  type: "marker";
  /** When the switch happened (the old container's lines end there). */
  at: string;
  container: string;
  release: string | null;
  text: string;
}

/** Sent while nothing else is, so that proxies keep the stream open and a gone client is noticed. */
export interface LogPingEvent {
  type: "ping";
}

export type LogEvent = LogLineEvent | LogMarkerEvent | LogPingEvent;

/** What following a service needs: the engine's read-only port and the worker's word on the active container. */
export interface FollowPorts {
  reader: LogReader;
  /** Every container of this service (and only this service): its label filter. */
  labelFilter: string[];
  /** The active container's name as the worker last wrote it, and when. */
  active(): Promise<{ container: string | null; at: Date | null }>;
  /** When a release went live, if it did. */
  liveAt(releaseId: string): Promise<Date | null>;
  /** The secret values to hide in one container's lines: its own (those it was created with) and the service's current ones. */
  secretsOf(c: LogContainer): Promise<string[]>;
  /** How long a line that could begin a secret waits for the next one before it is sent as it is. */
  holdMs: number;
  /** How often the active container is looked up. */
  pollMs: number;
  /** After a switch, how long the old container may stay quiet before its lines are taken as complete. */
  idleMs: number;
  /** A ping after this long without an event. */
  pingMs: number;
}

export function lineEvent(container: string, l: LogLine): LogLineEvent {
  return { type: "line", container, stream: l.stream, at: l.at, line: l.line };
}

/** A container's lines from the engine, its secrets redacted (across lines and the engine's frames). */
async function readLines(p: FollowPorts, c: LogContainer, opts: Parameters<FollowPorts["reader"]["lines"]>[1]): Promise<AsyncGenerator<LogLine>> {
  return redactedLines(p.reader.lines(c.id, opts), await p.secretsOf(c), p.holdMs);
}

const fixed = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z");

const TICK = Symbol("tick");
function sleep(ms: number, signal: AbortSignal): Promise<typeof TICK> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(TICK);
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve(TICK);
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

/** `pending`'s result, or TICK once `ms` passed (or `signal` aborted) first; the timer never outlives the call. */
function within<T>(pending: Promise<T>, ms: number, signal: AbortSignal): Promise<T | typeof TICK> {
  if (signal.aborted) return Promise.resolve(TICK);
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const tick = new Promise<typeof TICK>((resolve) => {
    onAbort = () => resolve(TICK);
    timer = setTimeout(onAbort, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([pending, tick]).finally(() => {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  });
}

interface Target {
  container: LogContainer;
  /** When it became the active one (the cut-off of the one before). */
  since: string;
}

/**
 * The container to follow next, once the active one is no longer `current`: normally the active
 * one; after several switches in a row (a deploy, then another before this stream caught up), the
 * first container that went live after `current` did and is still there, so none is skipped.
 */
async function findActive(p: FollowPorts, current: Target | null): Promise<Target | null> {
  const a = await p.active();
  if (a.container === null || a.container === current?.container.name) return null;
  const all = await p.reader.containers(p.labelFilter);
  const c = all.find((x) => x.name === a.container);
  if (!c) return null;
  const liveOf = async (x: LogContainer) => {
    const release = x.labels[Labels.release];
    const live = release ? await p.liveAt(release) : null;
    return live ? fixed(live) : null;
  };
  const active: Target = { container: c, since: (await liveOf(c)) ?? fixed(a.at ?? new Date()) };
  if (!current) return active;
  let first = active;
  for (const x of all) {
    if (x.id === c.id || x.id === current.container.id || isPreDeployContainer(x)) continue;
    const since = await liveOf(x);
    if (since !== null && since > current.since && since < first.since) first = { container: x, since };
  }
  return first;
}

/** Skips lines already sent when a container's logs are read again (after it restarted) from the last time sent. */
class Seen {
  private last: string | null = null;
  private atLast = 0;
  private skipping = 0;
  again(): string | undefined {
    this.skipping = this.atLast;
    return this.last ?? undefined;
  }
  fresh(at: string): boolean {
    if (this.last !== null && at < this.last) return false;
    if (at === this.last && this.skipping > 0) {
      this.skipping--;
      return false;
    }
    this.atLast = at === this.last ? this.atLast + 1 : 1;
    this.last = at;
    return true;
  }
}

/**
 * Follows whichever container is the service's active one. When the worker switches traffic to a
 * new container (a deploy, a restart, a rollback), the old container's lines end at the switch
 * time, a marker names the new container and its release, and the new container's lines follow
 * from its very first (what it printed while getting ready included): no line is sent twice or
 * skipped. The engine's timestamps decide what came before the switch. The first container's
 * lines start at `since` and `tail`. One line is read ahead at most: a slow reader holds the
 * engine's stream back instead of growing a buffer.
 */
export async function* followService(p: FollowPorts, q: { since: string | null; tail: number }, signal: AbortSignal): AsyncGenerator<LogEvent> {
  let target: Target | null = null;
  let lastEvent = Date.now();
  while (!signal.aborted && !(target = await findActive(p, null))) {
    await sleep(p.pollMs, signal);
    if (Date.now() - lastEvent >= p.pingMs) {
      lastEvent = Date.now();
      yield { type: "ping" };
    }
  }
  let reopen: { tail?: number; since?: string } = { tail: q.tail, ...(q.since ? { since: q.since } : {}) };
  let seen = new Seen();
  while (target && !signal.aborted) {
    const current: Target = target;
    const name = current.container.name;
    const ac = new AbortController();
    const stop = () => ac.abort();
    signal.addEventListener("abort", stop, { once: true });
    const it = await readLines(p, target.container, { follow: true, ...reopen, signal: ac.signal });
    let pending = it.next();
    let next: Target | null = null;
    let nextPoll = Date.now();
    /** Lines at or before this time were printed while this container was the active one. */
    let confirmed = "";
    let held: LogLine | null = null;
    let ended = false;
    const poll = async (): Promise<Target | null> => {
      const at = fixed(new Date());
      nextPoll = Date.now() + p.pollMs;
      const found = await findActive(p, current);
      if (!found) confirmed = at;
      return found;
    };
    try {
      // Its lines, each sent once a look-up after its time found this container still active (at
      // most one look-up per pollMs, shared by every line printed before it).
      while (!next && !signal.aborted) {
        if (Date.now() >= nextPoll) {
          next = await poll();
          if (!next && Date.now() - lastEvent >= p.pingMs) {
            lastEvent = Date.now();
            yield { type: "ping" };
          }
          continue;
        }
        const r = await within(pending, nextPoll - Date.now(), signal);
        if (r === TICK) continue;
        if (r.done) {
          ended = true;
          break;
        }
        pending = it.next();
        if (!seen.fresh(r.value.at)) continue;
        if (r.value.at > confirmed) {
          await sleep(Math.max(0, nextPoll - Date.now()), signal);
          if (signal.aborted) break;
          next = await poll();
          if (next) {
            held = r.value;
            break;
          }
        }
        lastEvent = Date.now();
        yield lineEvent(name, r.value);
      }
      // Switched while it still printed: its lines up to the switch, then no more.
      if (next && !ended) {
        for (let line = held; ; ) {
          if (line) {
            if (line.at > next.since) break;
            yield lineEvent(name, line);
          }
          const r = await within(pending, p.idleMs, signal);
          if (r === TICK || r.done) break;
          pending = it.next();
          line = seen.fresh(r.value.at) ? r.value : null;
        }
      }
    } finally {
      ac.abort();
      signal.removeEventListener("abort", stop);
      await pending.catch(() => undefined);
      await it.return(undefined).catch(() => undefined);
    }
    // Its logs ended (it stopped): wait for a switch, or for it to run again (the engine restarted it).
    while (!next && !signal.aborted) {
      await sleep(p.pollMs, signal);
      next = await findActive(p, current);
      if (next) break;
      const again = (await p.reader.containers(p.labelFilter)).find((c) => c.id === target?.container.id);
      if (again?.state === "running") break;
      if (Date.now() - lastEvent >= p.pingMs) {
        lastEvent = Date.now();
        yield { type: "ping" };
      }
    }
    if (signal.aborted) return;
    if (next) {
      const release = next.container.labels[Labels.release] ?? null;
      lastEvent = Date.now();
      yield { type: "marker", at: next.since, container: next.container.name, release, text: `switched to ${next.container.name}${release ? ` (release ${release})` : ""}` };
      target = next;
      reopen = {}; // from its first line
      seen = new Seen();
    } else {
      const since = seen.again();
      reopen = since ? { since } : {};
    }
  }
}

/** One container's lines, followed until it stops (or not followed): `?container=`. */
export async function* followContainer(p: FollowPorts, c: LogContainer, q: { since: string | null; tail: number; follow: boolean }, signal: AbortSignal): AsyncGenerator<LogEvent> {
  for await (const l of await readLines(p, c, { follow: q.follow, tail: q.tail, ...(q.since ? { since: q.since } : {}), signal })) {
    yield lineEvent(c.name, l);
  }
}
