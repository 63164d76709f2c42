"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { useService } from "@/lib/service-queries";
import { capabilitiesText, cpusText, memoryText } from "@/lib/limits-form";
import { placementSummary } from "@/lib/scale-form";
import { LimitsForm } from "./limits-form";
import { type EngineKind, ScaleForm } from "./scale-form";
import { type Scoped, environmentHref, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";

/**
 * The desired state the operator asked for (what the next Deploy runs), its limits and its replicas
 * and placement with their forms, and Delete: the service page's Settings tab (hooks and domains
 * have a tab of their own). `engine`: what the page learnt of the engine, for the swarm fields' note.
 */
export function ServiceConfig({ service: ref, engine }: { service: Scoped; engine: EngineKind }) {
  const service = useService(ref);
  const [saved, setSaved] = useState<string | null>(null);
  const s = service.data;
  return (
    <section className="card" aria-labelledby="config-title">
      <div className="card-head">
        <h2 id="config-title">Configuration</h2>
        <DeleteService service={ref} />
      </div>
      <Alert error={service.error} />
      {s && (
        <dl className="facts">
          <dt>App</dt>
          <dd>{s.app}</dd>
          <dt>Image</dt>
          <dd className="mono">{s.image || "not built yet"}</dd>
          <dt>Port</dt>
          <dd>{s.port}</dd>
          <dt>Health path</dt>
          <dd className="mono">{s.healthPath}</dd>
          <dt>Strategy</dt>
          <dd>{s.strategy}</dd>
          <dt>Ready budget</dt>
          <dd>{s.readyBudgetSeconds} s</dd>
          <dt>Memory</dt>
          <dd data-testid="limit-memory">{memoryText(s.resources.memoryMb)}</dd>
          <dt>CPUs</dt>
          <dd data-testid="limit-cpus">{cpusText(s.resources.cpus)}</dd>
          <dt>Processes</dt>
          <dd data-testid="limit-pids">{s.resources.pids}</dd>
          <dt>Added capabilities</dt>
          <dd data-testid="limit-caps" className="mono">
            {capabilitiesText(s.resources.capAdd)}
          </dd>
          <dt>Replicas</dt>
          <dd data-testid="scale-replicas">{s.replicas}</dd>
          <dt>Placement</dt>
          <dd data-testid="scale-placement" className={Object.keys(s.placement).length ? "mono" : undefined}>
            {placementSummary(s.placement)}
          </dd>
        </dl>
      )}
      {s && (
        <div className="stack section">
          <LimitsForm key={JSON.stringify(s.resources)} service={s} onSaved={() => setSaved("Saved limits")} onEdit={() => setSaved(null)} />
          <ScaleForm key={JSON.stringify([s.replicas, s.placement])} service={s} engine={engine} onSaved={() => setSaved("Saved replicas and placement")} onEdit={() => setSaved(null)} />
          {saved && (
            <p className="success" role="status">
              {saved}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

/** Two clicks: "Delete service", then "Confirm delete". */
function DeleteService({ service }: { service: Scoped }) {
  const router = useRouter();
  const qc = useQueryClient();
  const [armed, setArmed] = useState(false);
  const remove = useMutation({
    mutationFn: () => api(serviceApi(service), { method: "DELETE" }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keys.services() });
      qc.removeQueries({ queryKey: keys.service(service) });
      router.push(environmentHref(service.environmentId));
    },
  });
  return (
    <span className="inline">
      {remove.isError && (
        <Alert inline>
          {remove.error.message}
        </Alert>
      )}
      {armed ? (
        <>
          <button type="button" className="danger" onClick={() => remove.mutate()} disabled={remove.isPending}>
            Confirm delete
          </button>
          <button type="button" className="secondary" onClick={() => setArmed(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" className="secondary" onClick={() => setArmed(true)}>
          Delete service
        </button>
      )}
    </span>
  );
}
