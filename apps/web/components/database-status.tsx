"use client";
import Link from "@/components/link";
import { type Scoped, serviceHref } from "@/lib/paths";
import { useDatabase } from "@/lib/database-detail-queries";
import { PhaseBadge } from "./phase-badge";
import { Timestamp } from "./timestamp";
import { Alert } from "./alert";

/** What the worker last observed of a database (polled while it starts or restores), and what it runs. */
export function DatabaseStatusCard({ database }: { database: Scoped }) {
  const d = useDatabase(database);
  return (
    <section className="card" aria-labelledby="database-status-title">
      <h2 id="database-status-title">Status</h2>
      {d.isPending && <p className="muted">Loading…</p>}
      <Alert error={d.error} />
      {d.data && (
        <dl className="facts">
          <dt>Phase</dt>
          <dd>
            <PhaseBadge phase={d.data.phase} testId="database-phase" />
          </dd>
          <dt>Message</dt>
          <dd data-testid="database-message">{d.data.message || "—"}</dd>
          <dt>Engine</dt>
          <dd>PostgreSQL {d.data.version}</dd>
          <dt>Image</dt>
          <dd className="mono">{d.data.image}</dd>
          <dt>Data volume</dt>
          <dd className="mono">{d.data.volume}</dd>
          <dt>Created</dt>
          <dd>
            <Timestamp iso={d.data.createdAt} />
          </dd>
        </dl>
      )}
    </section>
  );
}

/** Which services attach the database under which key (polled with the database); ConnectionCard (connection-card.tsx) holds it. */
export function AttachedBy({ database }: { database: Scoped }) {
  const d = useDatabase(database);
  if (!d.data) return null;
  return d.data.attachedBy.length === 0 ? (
    <p className="muted">No service attaches it yet.</p>
  ) : (
    <table aria-labelledby="attached-by-title">
      <thead>
        <tr>
          <th scope="col">Service</th>
          <th scope="col">App</th>
          <th scope="col">Key</th>
        </tr>
      </thead>
      <tbody>
        {d.data.attachedBy.map((a) => (
          <tr key={`${a.service}/${a.key}`}>
            <td>
              <Link href={serviceHref({ environmentId: database.environmentId, name: a.service }, "settings")}>{a.service}</Link>
            </td>
            <td>{a.app}</td>
            <td className="key-cell">{a.key}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
