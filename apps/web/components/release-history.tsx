"use client";
import { formatDuration, releaseKindText } from "@/lib/format";
import { useDeploys } from "@/lib/service-queries";
import { ListTable } from "./list-card";
import { Timestamp } from "./timestamp";
import type { Scoped } from "@/lib/paths";

/**
 * The table of ReleaseHistory (release-history-card.tsx, whose heading renders on the server):
 * every Deploy, Restart, Rollback and Promote of the service, newest first, outcomes updating live;
 * with `recent`, only that many newest.
 */
export function ReleaseTable({ service, recent }: { service: Scoped; recent?: number }) {
  const deploys = useDeploys(service);
  const rows = recent === undefined ? deploys.data : deploys.data?.slice(0, recent);
  return (
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
  );
}
