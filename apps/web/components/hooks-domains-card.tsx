"use client";
import { useState } from "react";
import type { ServiceView } from "@levelrail/spec/service";
import { useService } from "@/lib/service-queries";
import type { Scoped } from "@/lib/paths";
import { DomainOwnership } from "./domain-ownership";
import { HooksDomainsForm } from "./hooks-domains-form";
import { Alert } from "./alert";

/** The service's deploy hooks and domains (the service page's "Hooks and domains" tab). */
export function HooksDomainsCard({ service: ref }: { service: Scoped }) {
  const service = useService(ref);
  const [saved, setSaved] = useState<string | null>(null);
  const s = service.data;
  return (
    <section className="card stack" aria-labelledby="hooks-domains-card-title">
      <h2 id="hooks-domains-card-title">Hooks and domains</h2>
      <Alert error={service.error} />
      {s && <HooksDomainsForm key={savedShape(s)} service={s} onSaved={() => setSaved("Saved hooks and routing")} onEdit={() => setSaved(null)} />}
      {saved && (
        <p className="success" role="status">
          {saved}
        </p>
      )}
      {s && <DomainOwnership service={ref} status={s.domainStatus} />}
    </section>
  );
}

/** What the edit form starts from: it restarts when the saved hooks or domains change. */
const savedShape = (s: ServiceView) => JSON.stringify([s.hooks, s.domains]);
