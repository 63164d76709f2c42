"use client";
import { useQueryClient } from "@tanstack/react-query";
import type { EnvScope } from "@levelrail/db/schema/config";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { tierEnvPath, useTierEnv } from "@/lib/config-queries";
import type { TierEnv } from "@/lib/types";
import { EnvEditor } from "./env-editor";
import { Alert } from "./alert";

/** One tier's editor: loads the set, PUTs the whole set, and refreshes every service's effective env. */
export function TierEnvEditor({ tier, id, title, description }: { tier: EnvScope; id: string; title: string; description: string }) {
  const qc = useQueryClient();
  const env = useTierEnv(tier, id);
  if (!env.data) {
    return (
      <section className="card" aria-label={title}>
        <h2>{title}</h2>
        {env.isError ? <Alert>{env.error.message}</Alert> : <p className="muted">Loading…</p>}
      </section>
    );
  }
  return (
    <EnvEditor
      key={`${tier}-${id}`}
      title={title}
      description={description}
      vars={env.data.vars}
      field="vars"
      save={(vars) => api<TierEnv>(tierEnvPath(tier, id), { method: "PUT", body: { vars } })}
      onSaved={() =>
        Promise.all([
          qc.invalidateQueries({ queryKey: keys.tierEnv(tier, id) }),
          qc.invalidateQueries({ queryKey: keys.allServices() }),
        ])
      }
    />
  );
}
