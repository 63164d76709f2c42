"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import { useState } from "react";
import { ApiError, api } from "@/lib/fetcher";
import type { Phase } from "@levelrail/spec/service-lists";
import { groupByApp, pageRange } from "@/lib/fleet-page";
import { type FleetFilter, NO_FILTER, byName, filtering } from "@/lib/natural-sort";
import { SERVICES_PAGE, keys } from "@/lib/keys";
import { useApps, useServicesPage } from "@/lib/fleet-queries";
import type { AppItem, ServiceItem } from "@/lib/types";
import { PhaseBadge } from "./phase-badge";
import { type Scoped, appApi, appHref, serviceHref } from "@/lib/paths";
import { Alert } from "./alert";

/**
 * The fleet a page at a time: the newest services first (a service just created is on the first
 * page), grouped into their apps' cards, with the apps that have no service yet ahead of them.
 * One environment's: its apps and services.
 */
export function AppsOverview({ envId, phases }: { envId: string; phases: readonly Phase[] }) {
  const apps = useApps(envId);
  const [filter, setFilter] = useState<FleetFilter>(NO_FILTER);
  // The cursors of the pages walked through, "" for the first: "Newer" goes back one.
  const [cursors, setCursors] = useState<string[]>([""]);
  const cursor = cursors[cursors.length - 1] ?? "";
  const page = useServicesPage(envId, cursor, filter);
  if (apps.isPending) return <p className="muted">Loading apps…</p>;
  if (apps.isError) return <Alert error={apps.error} />;
  if (apps.data.length === 0) return <p className="muted">No apps yet. Create one below, then add a service to it.</p>;
  const services = page.data?.services ?? [];
  const narrowed = filtering(filter);
  const groups = groupByApp(services, apps.data, cursors.length === 1 && !narrowed, (name) => ({
    id: name,
    name,
    orgId: "",
    environmentId: envId,
    createdAt: "",
    services: 0,
  }));
  const nextCursor = page.data?.nextCursor ?? null;
  const change = (f: Partial<FleetFilter>) => {
    setFilter((old) => ({ ...old, ...f }));
    setCursors([""]);
  };
  return (
    <div className="stack">
      <FleetFilterForm filter={filter} phases={phases} onChange={change} />
      <Alert error={page.error} />
      {narrowed && page.data && services.length === 0 && <p className="muted">No service matches the filter.</p>}
      {groups.map((g) => (
        <AppCard key={g.app.id} app={g.app} services={g.services} total={narrowed ? undefined : g.app.services} />
      ))}
      {page.data && (cursors.length > 1 || nextCursor !== null) && (
        <nav className="buttons" aria-label="Service pages">
          <span className="muted">Services {pageRange(cursors.length - 1, SERVICES_PAGE, services.length, page.data.total)}, paged newest first</span>
          <button type="button" className="secondary" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </button>
          <button
            type="button"
            className="secondary"
            disabled={nextCursor === null || page.isPlaceholderData}
            onClick={() => nextCursor !== null && setCursors((c) => [...c, nextCursor])}
          >
            Older
          </button>
        </nav>
      )}
    </div>
  );
}

/** Narrows the dashboard to services whose name contains some text, and to one phase. */
function FleetFilterForm({ filter, phases, onChange }: { filter: FleetFilter; phases: readonly Phase[]; onChange: (f: Partial<FleetFilter>) => void }) {
  return (
    <search className="row narrow-row" aria-label="Filter services">
      <div className="field">
        <label htmlFor="fleet-filter-name">Filter by name</label>
        <input id="fleet-filter-name" type="search" value={filter.name} onChange={(e) => onChange({ name: e.target.value })} autoComplete="off" spellCheck={false} />
      </div>
      <div className="field">
        <label htmlFor="fleet-filter-phase">Phase</label>
        <select id="fleet-filter-phase" value={filter.phase} onChange={(e) => onChange({ phase: phases.find((p) => p === e.target.value) ?? "" })}>
          <option value="">Any phase</option>
          {phases.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </div>
    </search>
  );
}

/** An app's services with their live phases; the heading links to the app's page unless `heading` replaces it. */
export function AppCard({
  app,
  services,
  heading,
  total,
}: {
  app: Pick<AppItem, "id" | "name" | "environmentId">;
  services: ServiceItem[];
  heading?: string;
  /** How many services the app has, when `services` may be only some of them (a page of the fleet). */
  total?: number;
}) {
  const more = total === undefined ? 0 : total - services.length;
  return (
    <section className="card" aria-labelledby={`app-${app.id}`}>
      <div className="card-head">
        <h2 id={`app-${app.id}`}>{heading ?? <Link href={appHref(app)}>{app.name}</Link>}</h2>
        {services.length === 0 && <DeleteAppButton app={app} />}
      </div>
      {more > 0 && services.length > 0 && (
        <p className="muted">
          {services.length} of {total} services here;{" "}
          <Link href={appHref(app)}>all of {app.name}</Link>
        </p>
      )}
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
            {[...services].sort(byName((s) => s.name)).map((s) => (
              <tr key={s.id}>
                <td>
                  {/* Not prefetched: a page of the fleet holds dozens of these, and a service's page is rendered per request anyway. */}
                  <Link href={serviceHref(s)} prefetch={false}>
                    {s.name}
                  </Link>
                </td>
                <td>
                  <PhaseBadge phase={s.phase} />
                  {s.crashLooping && (
                    <>
                      {" "}
                      <span className="badge phase-failed" title={`${s.restarts} restarts by the engine`}>
                        crash-looping
                      </span>
                    </>
                  )}
                </td>
                <td className="mono">{s.image || "not built yet"}</td>
                <td className="muted">{s.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function DeleteAppButton({ app }: { app: Scoped }) {
  const qc = useQueryClient();
  const remove = useMutation({
    mutationFn: () => api(appApi(app), { method: "DELETE" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.apps(app.environmentId) }),
  });
  return (
    <span className="inline">
      {remove.isError && (
        <Alert inline>
          {remove.error instanceof ApiError ? remove.error.message : "could not delete"}
        </Alert>
      )}
      <button type="button" className="secondary" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Delete app ${app.name}`}>
        Delete
      </button>
    </span>
  );
}
