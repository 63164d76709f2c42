"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { DomainStatusMap, DomainStatusView } from "@levelrail/spec/domains";
import { api } from "@/lib/fetcher";
import { formatTime } from "@/lib/format";
import { keys } from "@/lib/keys";
import { type Scoped, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";
import { Copyable } from "./copyable";
import { ListTable } from "./list-card";

const STATUS_TEXT: Record<DomainStatusView["status"], string> = { pending: "pending", verified: "verified", failed: "failed" };

/**
 * The ownership proof of each of the service's domains that needs one: the TXT record to create
 * (copyable), its status, the last check's time and result, and "Check now".
 */
export function DomainOwnership({ service, status }: { service: Scoped; status: DomainStatusMap }) {
  const qc = useQueryClient();
  const proofs = Object.entries(status).filter(([, s]) => !s.exempt);
  const check = useMutation({
    mutationFn: () => api<{ domainStatus: DomainStatusMap }>(serviceApi(service, "/domains/check"), { method: "POST", body: {} }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.service(service) }),
  });
  if (proofs.length === 0) return null;
  return (
    <section className="stack" aria-labelledby="domain-ownership-title">
      <h3 id="domain-ownership-title">Domain ownership</h3>
      <p className="muted">
        A domain routes only once this organization has proven it owns it: create the TXT record below at your DNS provider. Levelrail checks it every minute at first, then less
        often; a proven domain is checked again every hour.
      </p>
      <ListTable
        labelledBy="domain-ownership-title"
        source={{ data: proofs, error: null }}
        empty="No domain needs a proof."
        headers={["Domain", "Status", "TXT record", "Last check"]}
        rowKey={([domain]) => domain}
        row={([domain, s]) => (
          <tr>
            <td className="mono">{domain}</td>
            <td data-testid="domain-status">{STATUS_TEXT[s.status]}</td>
            <td>
              {s.record && (
                <div className="stack">
                  <Copyable label="Name" text={s.record.name} copyLabel="Copy the record's name" />
                  <Copyable label="Value" text={s.record.value} copyLabel="Copy the record's value" />
                </div>
              )}
            </td>
            <td>{s.lastCheck ? `${formatTime(s.lastCheck.at)}: ${s.lastCheck.result}` : "not checked yet"}</td>
          </tr>
        )}
      />
      <div className="inline">
        <button type="button" onClick={() => check.mutate()} disabled={check.isPending}>
          Check now
        </button>
        {check.isSuccess && (
          <span className="muted" role="status">
            Check queued
          </span>
        )}
      </div>
      <Alert error={check.error} />
    </section>
  );
}
