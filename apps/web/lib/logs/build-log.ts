import type { Ctx } from "@levelrail/services/context";
import { buildService, findBuild, followBuildLog } from "@levelrail/services/build/view";
import type { LogCaps } from "./caps";
import type { LogEvent } from "./follow";
import { sseResponse } from "./sse";

/** How often a followed build's new lines are looked for, and how often a quiet stream is pinged. */
const POLL_MS = 300;
const PING_MS = 15_000;

/**
 * `GET …/builds/{id}?follow=true`: the build's log as Server-Sent Events in the container logs' wire
 * format (`event: line`, `data: {container, stream, at, line}`, `container` being the build's id),
 * its lines so far then each new one, ending with `event: end` once the build has finished. Lines
 * were redacted when the worker wrote them. It takes one of the live log streams' slots (`caps`,
 * shared with the container logs: per user, per organization and in all; a 429 past any), given back when it ends.
 */
export async function buildLogStream({ ctx, envId, name, id, req, caps }: { ctx: Ctx; envId: string; name: string; id: string; req: Request; caps: Pick<LogCaps, "slots"> }): Promise<Response> {
  const s = await buildService(ctx, envId, name, "build.read");
  const b = await findBuild(ctx, s.id, id);
  // Once the build is known to be the caller's (another organization's is a 404 first).
  const release = caps.slots.acquire(ctx.actor.userId, s.orgId);
  const abort = new AbortController();
  abort.signal.addEventListener("abort", release, { once: true });
  async function* events(): AsyncGenerator<LogEvent> {
    let last = Date.now();
    const lines = followBuildLog(ctx, b.id, abort.signal, POLL_MS);
    for await (const l of lines) {
      if (Date.now() - last > PING_MS) yield { type: "ping" };
      last = Date.now();
      yield { type: "line", container: b.id, stream: "stdout", at: l.at, line: l.line };
    }
  }
  const res = sseResponse(events(), abort, req.signal);
  if (req.signal.aborted) abort.abort();
  return res;
}
