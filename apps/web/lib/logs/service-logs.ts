import type { LogContainer, LogReader } from "@levelrail/docker/logs";
import type { Ctx } from "@levelrail/services/context";
import { activeContainer, logSecrets, logSubject, releaseLiveAt } from "@levelrail/services/service/logs";
import { LevelrailError } from "@levelrail/spec/errors";
import { Labels, Roles } from "@levelrail/spec/naming";
import { type LogCaps, TRUNCATED_HEADER, TailWindow } from "./caps";
import { type FollowPorts, type LogEvent, followContainer, followService } from "./follow";
import { containerSecrets } from "./secrets";
import { parseLogQuery } from "./query";
import { sseResponse } from "./sse";

/** How a stream is paced; the route's defaults suit a browser, tests may go faster. */
export interface LogTiming {
  pollMs: number;
  idleMs: number;
  pingMs: number;
}

export const DEFAULT_TIMING: LogTiming = { pollMs: 200, idleMs: 500, pingMs: 15_000 };

/** How long a line that could begin a secret (a PEM key's first line) waits for the next one. */
const HOLD_MS = 300;

/** A container of the service, for the Logs view's picker. */
export interface LogContainerView {
  name: string;
  /** `service` or `pre-deploy` (a hook's). */
  role: string;
  state: string;
  status: string;
  release: string | null;
  active: boolean;
  createdAt: string;
}

interface Args {
  ctx: Ctx;
  envId: string;
  name: string;
  reader: LogReader;
}

function toView(c: LogContainer, active: string | null): LogContainerView {
  return {
    name: c.name,
    role: c.labels[Labels.role] ?? Roles.service,
    state: c.state,
    status: c.status,
    release: c.labels[Labels.release] ?? null,
    active: c.name === active,
    createdAt: new Date(c.createdAt).toISOString(),
  };
}

/** Every container the engine has of this service (active first, then newest first). */
export async function serviceLogContainers({ ctx, envId, name, reader }: Args): Promise<LogContainerView[]> {
  const subject = await logSubject({ ctx, envId, name });
  const [all, active] = await Promise.all([reader.containers(subject.labelFilter), activeContainer(ctx, subject)]);
  return all
    .map((c) => toView(c, active.container))
    .sort((a, b) => Number(b.active) - Number(a.active) || b.createdAt.localeCompare(a.createdAt) || a.name.localeCompare(b.name));
}

/**
 * `GET …/services/{service}/logs`: the service's lines as JSON (`[{container, stream, at, line}]`,
 * oldest first), or with `?follow=true` as Server-Sent Events that follow the active container
 * across deploys. `?container=` names one of this service's containers (by its labels; any other
 * name is a 404). Lines have the service's secret values replaced with `[redacted]` (each
 * container's own values too), in every form and across lines (`redactedLines`).
 */
export async function serviceLogs({ ctx, envId, name, reader, req, caps, timing = DEFAULT_TIMING }: Args & { req: Request; caps: LogCaps; timing?: LogTiming }): Promise<Response> {
  const q = parseLogQuery(new URL(req.url).searchParams);
  const subject = await logSubject({ ctx, envId, name });
  // A live stream's slot is taken before anything costly (the secrets, the engine), once the service
  // is known to be the caller's (another organization's is a 404 first), and given back by the
  // stream's end (the client gone, the request aborted, the logs ended or failed: each aborts `abort`).
  const release = q.follow ? caps.slots.acquire(ctx.actor.userId, subject.orgId) : null;
  const abort = new AbortController();
  if (release) abort.signal.addEventListener("abort", release, { once: true });
  let events: AsyncGenerator<LogEvent>;
  try {
    const current = await logSecrets(ctx, subject);
    const ports: FollowPorts = {
      reader,
      labelFilter: subject.labelFilter,
      active: () => activeContainer(ctx, subject),
      liveAt: (id) => releaseLiveAt(ctx, subject, id),
      secretsOf: (c) => containerSecrets(reader, c, current),
      holdMs: HOLD_MS,
      ...timing,
    };
    let picked: LogContainer | null = null;
    if (q.container !== null) {
      picked = (await reader.containers(subject.labelFilter)).find((c) => c.name === q.container) ?? null;
      if (!picked) throw new LevelrailError("not_found", `container ${q.container} not found`, { field: "container" });
    }
    if (!q.follow) {
      const target = picked ?? (await activeOf(ports));
      return await tailResponse(target ? followContainer(ports, target, q, abort.signal) : null, caps.tailBytes);
    }
    events = picked ? followContainer(ports, picked, q, abort.signal) : followService(ports, q, abort.signal);
  } catch (err) {
    abort.abort();
    throw err;
  }
  const res = sseResponse(events, abort, req.signal);
  // A client gone before the stream existed never aborts it: end it (and free the slot) now.
  if (req.signal.aborted) abort.abort();
  return res;
}

/**
 * A tail as JSON: the newest lines within `capBytes` (read one at a time, the older ones let go as
 * newer ones arrive); when some were left out, `x-levelrail-logs-truncated` says how many. The
 * array is written a line at a time as the client reads it, never built whole.
 */
export async function tailResponse(events: AsyncIterable<LogEvent> | null, capBytes: number): Promise<Response> {
  const window = new TailWindow(capBytes);
  if (events) for await (const e of events) if (e.type === "line") window.push(e);
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (window.dropped > 0) headers[TRUNCATED_HEADER] = String(window.dropped);
  const kept = window.kept();
  const encoder = new TextEncoder();
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= kept.length) {
        controller.enqueue(encoder.encode(next === 0 ? "[]" : "]"));
        controller.close();
        return;
      }
      const e = kept[next];
      kept[next] = undefined; // sent: let it go
      const { type: _type, ...line } = e!;
      controller.enqueue(encoder.encode(`${next === 0 ? "[" : ","}${JSON.stringify(line)}`));
      next++;
    },
  });
  return new Response(body, { headers });
}

async function activeOf(p: FollowPorts): Promise<LogContainer | null> {
  const { container } = await p.active();
  if (container === null) return null;
  return (await p.reader.containers(p.labelFilter)).find((c) => c.name === container) ?? null;
}
