"use client";
import Link from "next/link";
import { formatDuration, releaseKindText } from "@/lib/format";
import { useDeploys } from "@/lib/queries";
import { ListTable } from "./list-card";
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
      <ListTable
        labelledBy="history-title"
        source={{ data: rows, error: deploys.error }}
        loading="Loading…"
        empty="Not deployed yet."
        headers={["Kind", "Image", "Who", "When", "Outcome", "Duration", "Message"]}
        rowKey={(r) => r.id}
        row={(r) => (
          <tr>
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
        )}
      />
    </section>
  );
}
