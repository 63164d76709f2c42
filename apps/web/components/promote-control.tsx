"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import type { ReleaseView } from "@levelrail/spec/service";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { type Scoped, serviceApi, serviceHref } from "@/lib/paths";
import { useEnvironments } from "@/lib/queries";
import { useDeploys } from "@/lib/service-queries";
import type { EnvironmentItem } from "@/lib/types";
import { FormMessages } from "./form-messages";

/** Why the service cannot be promoted yet, or null. */
function blocked(service: Scoped, deploys: ReleaseView[] | undefined, targets: EnvironmentItem[]): string | null {
  if (deploys && !deploys.some((r) => r.outcome === "succeeded")) {
    return `Nothing to promote yet: deploy ${service.name} here successfully first (a promote sends the exact image this environment runs).`;
  }
  if (targets.length === 0) return "This project has no other environment: clone this one to make one.";
  return null;
}

/**
 * "Promote to <environment>" for every other environment of the project: the same-named service
 * there deploys the exact image id this one runs. The buttons and what they say, inside
 * PromoteCard (promote-card.tsx), whose heading and text render on the server.
 */
export function PromoteControl({ service, projectId, denied = null }: { service: Scoped; projectId: string; denied?: string | null }) {
  const qc = useQueryClient();
  const environments = useEnvironments(projectId);
  const deploys = useDeploys(service);
  const targets = (environments.data ?? []).filter((e) => e.id !== service.environmentId);
  const promote = useMutation({
    mutationFn: async (to: EnvironmentItem) => ({ to, release: await api<ReleaseView>(serviceApi(service, "/promote"), { method: "POST", body: { to: to.id } }) }),
    onSuccess: ({ to }) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: keys.service({ environmentId: to.id, name: service.name }) }),
        qc.invalidateQueries({ queryKey: keys.services() }),
      ]),
  });
  const reason = denied ? `Your role cannot do this here: ${denied}.` : blocked(service, deploys.data, targets);
  const done = promote.data && (
    <>
      Promoting {promote.data.release.image} to {promote.data.to.name}: its deploy is queued.{" "}
      <Link href={serviceHref({ environmentId: promote.data.to.id, name: service.name })}>
        Open {service.name} in {promote.data.to.name}
      </Link>
    </>
  );
  return (
    <>
      <div className="buttons">
        {targets.map((to) => (
          <button
            key={to.id}
            type="button"
            className="secondary"
            disabled={reason !== null || promote.isPending}
            aria-describedby={reason ? "promote-reason" : undefined}
            onClick={() => promote.mutate(to)}
          >
            Promote to {to.name}
          </button>
        ))}
      </div>
      {reason && (
        <p id="promote-reason" className="muted">
          {reason}
        </p>
      )}
      <FormMessages error={promote.isError ? promote.error.message : undefined} done={done} />
    </>
  );
}
