import type { LogContainer, LogReader } from "@levelrail/docker/logs";
import type { Ctx } from "@levelrail/services/context";
import { activeContainer, logSecrets, logSubject, releaseLiveAt } from "@levelrail/services/service/logs";
import { LevelrailError } from "@levelrail/spec/errors";
import { Labels, Roles } from "@levelrail/spec/naming";
import { type FollowPorts, type LogLineEvent, followContainer, followService } from "./follow";
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
export async function serviceLogs({ ctx, envId, name, reader, req, timing = DEFAULT_TIMING }: Args & { req: Request; timing?: LogTiming }): Promise<Response> {
  const q = parseLogQuery(new URL(req.url).searchParams);
  const subject = await logSubject({ ctx, envId, name });
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
  const abort = new AbortController();
  if (!q.follow) {
    const target = picked ?? (await activeOf(ports));
    const lines: LogLineEvent[] = [];
    if (target) {
      for await (const e of followContainer(ports, target, q, abort.signal)) if (e.type === "line") lines.push(e);
    }
    return Response.json(lines.map(({ type: _type, ...l }) => l));
  }
  const events = picked ? followContainer(ports, picked, q, abort.signal) : followService(ports, q, abort.signal);
  return sseResponse(events, abort, req.signal);
}

async function activeOf(p: FollowPorts): Promise<LogContainer | null> {
  const { container } = await p.active();
  if (container === null) return null;
  return (await p.reader.containers(p.labelFilter)).find((c) => c.name === container) ?? null;
}
