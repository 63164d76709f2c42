"use client";
import type { ReactNode } from "react";
import type { QuotaKind } from "@levelrail/spec/lists";
import { useQuotas } from "@/lib/settings-queries";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";

/**
 * An organization's quotas: how many apps, services, databases, domains and notification channels it has of how many it may.
 * `kinds` (QUOTA_KINDS) and `note` (who sets them, QuotasNote) come from the server page: neither the
 * lists module nor the text is in the page's JavaScript.
 */
export function QuotasCard({ org, kinds, note }: { org: OrgItem; kinds: readonly QuotaKind[]; note: ReactNode }) {
  const quotas = useQuotas(org.id);
  return (
    <section className="card" aria-labelledby="quotas-title">
      <h2 id="quotas-title">Quotas</h2>
      <p className="muted">
        The most the organization {org.name} may have. {note}
      </p>
      <Alert error={quotas.error} />
      {!quotas.data && !quotas.isError && <p className="muted">Loading…</p>}
      {quotas.data && (
        <table aria-labelledby="quotas-title">
          <thead>
            <tr>
              <th scope="col">Quota</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
            </tr>
          </thead>
          <tbody>
            {kinds.map((kind) => {
              const q = quotas.data.quotas[kind];
              return (
                <tr key={kind}>
                  <th scope="row">{kind}</th>
                  <td className={q.used >= q.limit ? "error" : undefined}>{q.used}</td>
                  <td>
                    {q.limit} <span className="muted">{q.source === "default" ? "(installation default)" : "(set for this organization)"}</span>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}
