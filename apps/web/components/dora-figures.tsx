"use client";
import { type ReactNode, useId, useState } from "react";
import type { DoraBand, DoraFigures } from "@levelrail/services/metrics/dora-figures";
import { formatSpan } from "@/lib/format";
import { DEFAULT_DORA_WINDOW, DORA_WINDOW_OPTIONS, type DoraWindowOption, TOP_SERVICES } from "@/lib/metric-windows";
import { useDoraMetrics } from "@/lib/metrics-queries";
import { Alert } from "./alert";
import { MoreServices } from "./more-services";

const percent = (rate: number | null) => (rate === null ? "—" : `${Math.round(rate * 1000) / 10}%`);
const perDay = (n: number) => (n >= 1 ? `${n.toFixed(1)} per day` : n === 0 ? "none" : `${(n * 7).toFixed(1)} per week`);

function Band({ band, figure }: { band: DoraBand | null; figure: string }) {
  if (band === null) return <span className="badge">no data</span>;
  return (
    <span className={`badge band-${band}`} data-testid={`band-${figure}`} title={`DORA performance band: ${band}`}>
      {band}
    </span>
  );
}

/** The four figures of the fleet (or one environment) as cards with their band. */
function FigureCards({ title, f }: { title: string; f: DoraFigures }) {
  const titleId = useId();
  const cells: { name: string; figure: string; value: string; band: DoraBand | null; detail: string }[] = [
    { name: "Deployment frequency", figure: "frequency", value: perDay(f.deploysPerDay), band: f.frequencyBand, detail: `${f.deploys} ${f.deploys === 1 ? "change" : "changes"} went live` },
    { name: "Lead time for changes", figure: "lead-time", value: formatSpan(f.leadTimeMs), band: f.leadTimeBand, detail: "median, image built → live" },
    {
      name: "Change failure rate",
      figure: "change-failure",
      value: percent(f.changeFailureRate),
      band: f.changeFailureBand,
      detail: `${f.failedChanges} of ${f.releases} releases failed or were rolled back within an hour`,
    },
    {
      name: "Time to restore",
      figure: "restore",
      value: formatSpan(f.timeToRestoreMs),
      band: f.timeToRestoreBand,
      detail: `median of ${f.restores} restores${f.openIncidents ? `; ${f.openIncidents} still failing` : ""}`,
    },
  ];
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{title}</h2>
      <dl className="dora-grid">
        {cells.map((c) => (
          <div key={c.figure} className="dora-cell" data-testid={`dora-${c.figure}`}>
            <dt>{c.name}</dt>
            <dd className="dora-value">
              {c.value} <Band band={c.band} figure={c.figure} />
            </dd>
            <dd className="muted">{c.detail}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

function FigureTable({ label, rows, more }: { label: string; rows: { key: string; name: ReactNode; f: DoraFigures }[]; more?: ReactNode }) {
  const titleId = useId();
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>{label}</h2>
      {rows.length === 0 ? (
        <p className="muted">Nothing was released in this window.</p>
      ) : (
        <table aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Deployment frequency</th>
              <th scope="col">Lead time</th>
              <th scope="col">Change failure rate</th>
              <th scope="col">Time to restore</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ key, name, f }) => (
              <tr key={key}>
                <td>{name}</td>
                <td>
                  {perDay(f.deploysPerDay)} <Band band={f.frequencyBand} figure="frequency" />
                </td>
                <td>
                  {formatSpan(f.leadTimeMs)} <Band band={f.leadTimeBand} figure="lead-time" />
                </td>
                <td>
                  {percent(f.changeFailureRate)} <Band band={f.changeFailureBand} figure="change-failure" />
                </td>
                <td>
                  {formatSpan(f.timeToRestoreMs)} <Band band={f.timeToRestoreBand} figure="restore" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {more}
    </section>
  );
}

/** DORA's four key figures over a chosen window, for the fleet, each environment and each service. */
export function DoraView() {
  const id = useId();
  const [span, setSpan] = useState<DoraWindowOption>(DEFAULT_DORA_WINDOW);
  // The per-service table lists the most released until "Show all" asks for every one.
  const [all, setAll] = useState(false);
  const dora = useDoraMetrics(span, all ? "all" : TOP_SERVICES);
  const d = dora.data;
  return (
    <section className="stack" aria-label="DORA figures">
      <div className="row narrow-row">
        <div className="field">
          <label htmlFor={`${id}-window`}>DORA window</label>
          <select id={`${id}-window`} value={span} onChange={(e) => setSpan(e.target.value as DoraWindowOption)}>
            {DORA_WINDOW_OPTIONS.map((w) => (
              <option key={w} value={w}>
                Last {w.replace("d", " days")}
              </option>
            ))}
          </select>
        </div>
      </div>
      {dora.isPending && <p className="muted">Loading…</p>}
      <Alert error={dora.error} />
      {d && (
        <div className={dora.isPlaceholderData ? "stack stale" : "stack"} aria-busy={dora.isPlaceholderData}>
          <FigureCards title="DORA figures: whole fleet" f={d.fleet} />
          <FigureTable label="DORA by environment" rows={d.environments.map((e) => ({ key: e.environmentId, name: e.environment, f: e.figures }))} />
          <FigureTable
            label="DORA by service"
            rows={d.services.map((s) => ({
              key: s.serviceId,
              name: (
                <>
                  {s.service} <span className="muted">{s.environment}</span>
                </>
              ),
              f: s.figures,
            }))}
            more={<MoreServices shown={d.services.length} total={d.servicesTotal} most="most released" onShowAll={() => setAll(true)} loading={all && dora.isPlaceholderData} />}
          />
          <p className="muted legend">
            Bands per the 2023 Accelerate State of DevOps report. Frequency counts deploys and promotions that went live; lead time runs from the image&apos;s
            build time (its org.opencontainers.image.created label, else the engine&apos;s) to going live; time to restore runs from a failed release or crash
            loop to the next successful release (or the loop&apos;s end).
          </p>
        </div>
      )}
    </section>
  );
}
