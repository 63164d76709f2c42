"use client";
import type { InfiniteData, UseInfiniteQueryResult } from "@tanstack/react-query";
import { type ReactNode, useId, useState } from "react";
import { HOOK_PHASE_LABELS, commandText, formatDuration } from "@/lib/format";
import { useAppHookRuns, useServiceHookRuns } from "@/lib/hook-run-queries";
import type { HookRunPage } from "@/lib/types";
import { HookOutcomeBadge, HookRunView } from "./hook-run-view";
import { Timestamp } from "./timestamp";
import type { Scoped } from "@/lib/paths";
import { Alert } from "./alert";

type HookRunsQuery = UseInfiniteQueryResult<InfiniteData<HookRunPage>>;

/** A service's pre/post-deploy hook runs, newest first. */
export function ServiceHookRuns({ service }: { service: Scoped }) {
  return <HookRuns title="Hook runs" query={useServiceHookRuns(service)} showService={false} />;
}

/** Every hook run of an app's services, with a filter by service. */
export function AppHookRuns({ app, services }: { app: Scoped; services: string[] }) {
  const id = useId();
  const [service, setService] = useState("");
  const query = useAppHookRuns(app, service);
  const filter = (
    <div className="field narrow">
      <label htmlFor={`${id}-filter`}>Filter by service</label>
      <select id={`${id}-filter`} value={service} onChange={(e) => setService(e.target.value)}>
        <option value="">All services</option>
        {services.map((s) => (
          <option key={s} value={s}>
            {s}
          </option>
        ))}
      </select>
    </div>
  );
  return <HookRuns title="Hook runs" query={query} showService filter={filter} />;
}

/**
 * The history table (outcome, phase, command, started, duration, exit code)
 * with "Load more"; a run's start time is a button that opens its output
 * below the table, live while it runs.
 */
function HookRuns({ title, query, showService, filter }: { title: string; query: HookRunsQuery; showService: boolean; filter?: ReactNode }) {
  const id = useId();
  const titleId = `${id}-title`;
  const panelId = `${id}-panel`;
  const [selected, setSelected] = useState<string | null>(null);
  const runs = query.data?.pages.flatMap((p) => p.runs) ?? [];
  return (
    <section className="card stack" aria-labelledby={titleId} id="hook-runs">
      <h2 id={titleId}>{title}</h2>
      {filter}
      {query.isPending && <p className="muted">Loading…</p>}
      <Alert error={query.error} />
      {query.isSuccess && runs.length === 0 && <p className="muted">No hook runs yet. They appear here when a deploy runs a pre- or post-deploy hook.</p>}
      {runs.length > 0 && (
        <table aria-labelledby={titleId} aria-busy={query.isPlaceholderData} className={query.isPlaceholderData ? "stale" : undefined}>
          <thead>
            <tr>
              <th scope="col">Outcome</th>
              <th scope="col">Phase</th>
              {showService && <th scope="col">Service</th>}
              <th scope="col">Command</th>
              <th scope="col">Started</th>
              <th scope="col">Duration</th>
              <th scope="col">Exit code</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((r) => (
              <tr key={r.id} className={selected === r.id ? "selected" : undefined}>
                <td>
                  <HookOutcomeBadge outcome={r.outcome} />
                </td>
                <td>{HOOK_PHASE_LABELS[r.phase]}</td>
                {showService && <td>{r.service}</td>}
                <td className="mono">{commandText(r.command)}</td>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-expanded={selected === r.id}
                    aria-controls={panelId}
                    onClick={() => setSelected(selected === r.id ? null : r.id)}
                  >
                    <span className="visually-hidden">{HOOK_PHASE_LABELS[r.phase]} hook run of {r.service} started </span>
                    <Timestamp iso={r.startedAt} />
                  </button>
                </td>
                <td>{r.outcome === "running" ? "running…" : formatDuration(r.durationMs)}</td>
                <td>{r.exitCode ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {query.hasNextPage && (
        <div className="buttons">
          <button type="button" className="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
            {query.isFetchingNextPage ? "Loading…" : "Load more"}
          </button>
        </div>
      )}
      <div id={panelId}>
        {selected && (
          <section className="output-panel stack" aria-label="Selected hook run">
            <HookRunView id={selected} titleId={`${panelId}-title`} pageLink />
            <div className="buttons">
              <button type="button" className="secondary" onClick={() => setSelected(null)}>
                Close output
              </button>
            </div>
          </section>
        )}
      </div>
    </section>
  );
}
