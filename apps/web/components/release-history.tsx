"use client";
import Link from "next/link";
import { formatDuration, releaseKindText } from "@/lib/format";
import { useDeploys } from "@/lib/queries";
import { Timestamp } from "./timestamp";
import { type Scoped, serviceHref } from "@/lib/paths";

/**
 * Every Deploy, Restart, Rollback and Promote of the service, newest first, outcomes updating live;
 * with `recent`, only that many newest as "Recent releases", linking to the whole history.
 */
export function ReleaseHistory({ service, recent }: { service: Scoped; recent?: number }) {
  const deploys = useDeploys(service);
  const rows = recent === undefined ? deploys.data : deploys.data?.slice(0, recent);
  return (
    <section className="card" aria-labelledby="history-title">
      <div className="card-head">
        <h2 id="history-title">{recent === undefined ? "Release history" : "Recent releases"}</h2>
        {recent !== undefined && <Link href={serviceHref(service, "deploys")}>All releases</Link>}
      </div>
      {deploys.isPending && <p className="muted">Loading…</p>}
      {deploys.isError && (
        <p className="error" role="alert">
          {deploys.error.message}
        </p>
      )}
      {deploys.data?.length === 0 && <p className="muted">Not deployed yet.</p>}
      {rows && rows.length > 0 && (
        <table aria-labelledby="history-title">
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Image</th>
              <th scope="col">Who</th>
              <th scope="col">When</th>
              <th scope="col">Outcome</th>
              <th scope="col">Duration</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.id}>
                <td>{releaseKindText(r)}</td>
                <td className="mono">{r.image}</td>
                <td>{r.createdBy}</td>
                <td>
                  <Timestamp iso={r.createdAt} />
                </td>
                <td>
                  <span className={`badge outcome-${r.outcome}`}>{r.outcome}</span>
                </td>
                <td>{formatDuration(r.durationMs)}</td>
                <td className="message">{r.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
