"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { useApps, useServices } from "@/lib/queries";
import type { AppItem, ServiceItem } from "@/lib/types";
import { PhaseBadge } from "./phase-badge";

/** Every app with its services and their live phases. */
export function AppsOverview() {
  const apps = useApps();
  const services = useServices();
  if (apps.isPending) return <p className="muted">Loading apps…</p>;
  if (apps.isError) return <p className="error" role="alert">{apps.error.message}</p>;
  if (apps.data.length === 0) return <p className="muted">No apps yet. Create one below, then add a service to it.</p>;
  const byApp = new Map<string, ServiceItem[]>();
  for (const s of services.data ?? []) byApp.set(s.app, [...(byApp.get(s.app) ?? []), s]);
  return (
    <div className="stack">
      {apps.data.map((a) => (
        <AppCard key={a.id} app={a} services={byApp.get(a.name) ?? []} />
      ))}
    </div>
  );
}

/** An app's services with their live phases; the heading links to the app's page unless `heading` replaces it. */
export function AppCard({ app, services, heading }: { app: AppItem; services: ServiceItem[]; heading?: string }) {
  return (
    <section className="card" aria-labelledby={`app-${app.id}`}>
      <div className="card-head">
        <h2 id={`app-${app.id}`}>{heading ?? <Link href={`/apps/${encodeURIComponent(app.name)}`}>{app.name}</Link>}</h2>
        {services.length === 0 && <DeleteAppButton name={app.name} />}
      </div>
      {services.length === 0 ? (
        <p className="muted">No services in this app yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Phase</th>
              <th scope="col">Image</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {services.map((s) => (
              <tr key={s.id}>
                <td>
                  <Link href={`/services/${encodeURIComponent(s.name)}`}>{s.name}</Link>
                </td>
                <td>
                  <PhaseBadge phase={s.phase} />
                </td>
                <td className="mono">{s.image}</td>
                <td className="muted">{s.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DeleteAppButton({ name }: { name: string }) {
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api(`/apps/${encodeURIComponent(name)}`, { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.apps() }),
  });
  return (
    <span className="inline">
      {remove.isError && (
        <small className="error" role="alert">
          {remove.error instanceof ApiError ? remove.error.message : "could not delete"}
        </small>
      )}
      <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Delete app ${name}`}>
        Delete
      </button>
    </span>
  );
}
