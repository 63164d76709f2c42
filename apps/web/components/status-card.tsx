"use client";
import dynamic from "next/dynamic";
import { useStatus } from "@/lib/service-queries";
import { PhaseBadge } from "./phase-badge";
import { Routes } from "./routes";
import { Timestamp } from "./timestamp";
import type { Scoped } from "@/lib/paths";
import { Alert } from "./alert";

/** The ANSI renderer, in its own chunk: only a crash-looping service shows its last lines. */
const AnsiText = dynamic(() => import("./ansi-text").then((m) => m.AnsiText), { loading: () => null });
/** The deploy's steps, in their own chunk too: only a service that is deploying shows them. */
const DeploySteps = dynamic(() => import("./deploy-steps").then((m) => m.DeploySteps), { loading: () => null });

/**
 * What the worker last observed, polled every second: phase, the image that serves (and while a
 * deploy runs, the one it is going to), the deploy step, and whether the domains are routed.
 */
export function StatusCard({ service, ingressPort }: { service: Scoped; ingressPort: number }) {
  const status = useStatus(service);
  return (
    <section className="card" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      {status.isPending && <p className="muted">Loading…</p>}
      <Alert error={status.error} />
      {status.data && (
        <dl className="facts">
          <dt>Phase</dt>
          <dd>
            <PhaseBadge phase={status.data.phase} testId="phase" />
          </dd>
          <dt>Serving</dt>
          <dd className="mono" data-testid="status-image">
            {status.data.servingImage ?? "—"}
          </dd>
          {status.data.targetImage !== null && status.data.targetImage !== status.data.servingImage && (
            <>
              <dt>Deploying</dt>
              <dd className="mono" data-testid="target-image">
                {status.data.targetImage}
              </dd>
            </>
          )}
          <dt>{status.data.replicas.some((r) => r.name !== status.data!.activeContainer) ? "Active service" : "Active container"}</dt>
          <dd className="mono" data-testid="active-container">
            {status.data.activeContainer ?? "—"}
          </dd>
          {status.data.replicas.length > 0 && (
            <>
              <dt>Replicas</dt>
              <dd>
                <ul className="replica-list" aria-label="Where each replica runs" data-testid="replicas">
                  {status.data.replicas.map((r) => (
                    <li key={r.name}>
                      <span className="mono" title={r.name}>
                        {/* a task's id, shortened as `docker service ps` shows it; a container's name in full */}
                        {r.name === status.data!.activeContainer ? r.name : r.name.slice(0, 12)}
                      </span> on <strong>{r.node}</strong> <span className="muted mono">{r.address}</span>
                    </li>
                  ))}
                </ul>
              </dd>
            </>
          )}
          {(status.data.crashLooping || status.data.restarts > 0) && (
            <>
              <dt>Restarts</dt>
              <dd data-testid="restarts">
                {status.data.crashLooping && (
                  <span className="badge phase-failed" role="status">
                    crash-looping
                  </span>
                )}{" "}
                {status.data.restarts} restart{status.data.restarts === 1 ? "" : "s"} by the engine
                {status.data.lastExit && (
                  <>
                    ; last exit code {status.data.lastExit.code ?? "?"}
                    {status.data.lastExit.at && (
                      <>
                        {" "}
                        at <Timestamp iso={status.data.lastExit.at} />
                      </>
                    )}
                  </>
                )}
              </dd>
            </>
          )}
          {status.data.crashLooping && status.data.lastLines && (
            <>
              <dt>Last lines before it died</dt>
              <dd>
                {status.data.lastLines.length > 0 ? (
                  <pre className="log" role="log" aria-label="Last lines before it died" data-testid="last-lines">
                    <AnsiText text={status.data.lastLines.join("\n")} />
                  </pre>
                ) : (
                  <span className="muted">It printed nothing.</span>
                )}
              </dd>
            </>
          )}
          <dt>Message</dt>
          <dd data-testid="status-message">{status.data.message || "—"}</dd>
          <dt>Observed</dt>
          <dd>{status.data.updatedAt ? <Timestamp iso={status.data.updatedAt} /> : "not yet"}</dd>
          {status.data.ingress && (
            <>
              <dt>Routes</dt>
              <dd>
                <Routes ingress={status.data.ingress} port={ingressPort} />
              </dd>
            </>
          )}
        </dl>
      )}
      {status.data && (
        <div className="section">
          {(status.data.phase === "deploying" || status.data.step !== null) && <DeploySteps service={service} status={status.data} />}
        </div>
      )}
    </section>
  );
}
