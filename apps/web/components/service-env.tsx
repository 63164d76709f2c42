"use client";
import { useQueryClient } from "@tanstack/react-query";
import type { ServiceView } from "@levelrail/spec/service";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { useService, useStorageEnvKeys } from "@/lib/service-queries";
import { EnvEditor } from "./env-editor";
import { type Scoped, serviceApi } from "@/lib/paths";

/** The service's own env vars, saved with PATCH {env}; warns when an attachment would override a key being added. */
export function ServiceEnv({ service: ref }: { service: Scoped }) {
  const qc = useQueryClient();
  const service = useService(ref);
  const storageKeys = useStorageEnvKeys();
  const s = service.data;
  if (!s) return null;

  function warning(next: Record<string, string>, saved: Record<string, string>): string | null {
    const added = Object.keys(next).filter((k) => !Object.hasOwn(saved, k));
    const byStorage = s?.storageTargetId ? added.filter((k) => storageKeys.data?.includes(k)) : [];
    const byDatabase = added.filter((k) => s !== undefined && Object.hasOwn(s.databaseEnv, k));
    const parts = [
      byStorage.length ? `${byStorage.join(", ")} ${byStorage.length === 1 ? "is" : "are"} set by the attached storage target` : null,
      byDatabase.length ? `${byDatabase.join(", ")} ${byDatabase.length === 1 ? "is" : "are"} set by a database attachment` : null,
    ].filter((p) => p !== null);
    if (parts.length === 0) return null;
    return `${parts.join("; ")}, which takes precedence: the value here will be ignored. Save anyway?`;
  }

  return (
    <EnvEditor
      title="Service env"
      description="This service's own variables; they override the organization, project and environment tiers."
      vars={s.env}
      field="env"
      warning={warning}
      save={(env) => api<ServiceView>(serviceApi(ref), { method: "PATCH", body: { env } })}
      onSaved={() => qc.invalidateQueries({ queryKey: keys.service(ref) })}
    />
  );
}
