import { UnusableContainerError } from "@levelrail/docker";
import type { DatabaseEngineId } from "@levelrail/spec/database";
import type { ProbeResult } from "../application/ports";
import type { ProbeTarget } from "../application/prober";
import type { ContainerPort, DatabaseCredentials, DatabaseEngine } from "./ports";

/** A database server (the database's own, or a one-off) whose readiness the prober manager follows. */
export interface DatabaseProbeTarget extends ProbeTarget {
  engine: DatabaseEngineId;
  /** The login the check uses (the engine's: PostgreSQL's `pg_isready` sends no password). */
  credentials: DatabaseCredentials;
  /**
   * The server's host as seen from inside the container (a pinned database's client): the check runs
   * there, by exec, against that host. Unset: the container is the server itself.
   */
  host?: string;
}

/** The last few lines of a container's log, on one line. */
export async function logTail(x: { runtime: Pick<ContainerPort, "containerLogs"> }, id: string, lines: number): Promise<string> {
  const text = await x.runtime.containerLogs(id, lines * 3).catch(() => "");
  return text.trim().split("\n").filter(Boolean).slice(-lines).join(" | ");
}

/**
 * One readiness check of a database server, for the prober manager (so no pass waits on it), within
 * `timeoutMs` and stopped at it: the worker's own handshake over TCP when the server has an address
 * on a network, else its image's check (`pg_isready` by exec). A server that exited, or is gone,
 * can never get ready as it is: that answer is final, with the end of its log.
 */
export function databaseProbe(x: { runtime: Pick<ContainerPort, "inspectContainer" | "containerLogs">; engine: (id: DatabaseEngineId) => DatabaseEngine }) {
  return async (t: DatabaseProbeTarget, timeoutMs: number): Promise<ProbeResult> => {
    const c = await x.runtime.inspectContainer(t.containerId);
    if (!c) return { ready: false, detail: "the database server's container disappeared", final: true };
    if (c.state === "exited" || c.state === "dead") {
      const tail = await logTail(x, c.id, 5);
      return { ready: false, detail: `the database server exited (code ${c.exitCode ?? "?"})${tail ? `: ${tail}` : ""}`, final: true };
    }
    if (c.state !== "running") return { ready: false, detail: `the server is ${c.state}` };
    // The check runs in the tenant's image: past its deadline it is stopped (exec dropped, process
    // killed), never left running; the race answers on time even if the engine is slow to let go.
    const stop = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), timeoutMs)));
    try {
      // On a network: asked by the worker itself over TCP (no client of the tenant's image runs).
      // On none (not attached yet, a one-off): the image's own check, by exec.
      const engine = x.engine(t.engine);
      const address = Object.values(c.addresses)[0];
      // A pinned database's client: the server is elsewhere, reached from inside the client.
      const check = t.host
        ? engine.ready(c.id, t.credentials, stop.signal, t.host)
        : address && engine.handshake
          ? engine.handshake(address, t.credentials, stop.signal)
          : engine.ready(c.id, t.credentials, stop.signal);
      check.catch(() => {});
      const ready = await Promise.race([check, late]);
      if (ready === "late") return { ready: false, detail: `no answer within ${timeoutMs} ms` };
      return ready ? { ready: true, detail: "accepting connections" } : { ready: false, detail: "not accepting connections yet" };
    } catch (err) {
      // Final, and only a new container on the same volume helps (the plan replaces it).
      if (err instanceof UnusableContainerError) return { ready: false, detail: err.message, final: true, replace: true };
      throw err;
    } finally {
      clearTimeout(timer);
      stop.abort(new Error(`no answer within ${timeoutMs} ms`));
    }
  };
}
