"use client";
import { useStatus } from "@/lib/queries";
import { PhaseBadge } from "./phase-badge";
import { Timestamp } from "./timestamp";

/** What the worker last observed, polled every second. */
export function StatusCard({ name }: { name: string }) {
  const status = useStatus(name);
  return (
    <section className="card" aria-labelledby="status-title">
      <h2 id="status-title">Status</h2>
      {status.isPending && <p className="muted">Loading…</p>}
      {status.isError && (
        <p className="error" role="alert">
          {status.error.message}
        </p>
      )}
      {status.data && (
        <dl className="facts">
          <dt>Phase</dt>
          <dd>
            <PhaseBadge phase={status.data.phase} testId="phase" />
          </dd>
          <dt>Image</dt>
          <dd className="mono" data-testid="status-image">
            {status.data.image ?? "—"}
          </dd>
          <dt>Active container</dt>
          <dd className="mono" data-testid="active-container">
            {status.data.activeContainer ?? "—"}
          </dd>
          <dt>Message</dt>
          <dd data-testid="status-message">{status.data.message || "—"}</dd>
          <dt>Observed</dt>
          <dd>{status.data.updatedAt ? <Timestamp iso={status.data.updatedAt} /> : "not yet"}</dd>
        </dl>
      )}
    </section>
  );
}
