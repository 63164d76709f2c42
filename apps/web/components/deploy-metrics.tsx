"use client";
import dynamic from "next/dynamic";
import { useId, useState } from "react";
import type { DayBucket } from "@levelrail/services/metrics/deploys";
import { fillDays } from "@/lib/chart";
import { formatDuration } from "@/lib/format";
import { DEFAULT_METRICS_DAYS, METRICS_PERIODS, TOP_SERVICES } from "@/lib/metric-windows";
import { useAllServices } from "@/lib/fleet-queries";
import { useDeployMetrics } from "@/lib/metrics-queries";
import { byName, naturalCompare } from "@/lib/natural-sort";
import type { DeployMetrics, ServiceItem } from "@/lib/types";
import { Alert } from "./alert";
import { MoreServices } from "./more-services";

/** The chart, in its own chunk (next/dynamic): the page's first load carries the figures, the drawing follows. */
// It only draws: its own Suspense boundary (a `loading`), so the page hydrates without waiting for it.
const DeployChart = dynamic(() => import("./deploy-chart").then((m) => m.DeployChart), { loading: () => null });

interface Totals {
  deploys: number;
  failed: number;
  meanDurationMs: number | null;
}

/** A service as the picker and the headings name it: its name and where it runs. */
const serviceLabel = (s: Pick<ServiceItem, "name" | "project" | "environment">) => `${s.name} (${s.project} / ${s.environment})`;

/** Deploys, failures and the mean duration of the successful ones, over some days (each day's mean weighted by its deploys). */
function totals(days: DayBucket[]): Totals {
  let deploys = 0;
  let failed = 0;
  let timed = 0;
  let sum = 0;
  for (const d of days) {
    deploys += d.deploys;
    failed += d.failed;
    if (d.meanDurationMs !== null) {
      timed += d.deploys;
      sum += d.meanDurationMs * d.deploys;
    }
  }
  return { deploys, failed, meanDurationMs: timed ? Math.round(sum / timed) : null };
}

/** Deploy frequency: the fleet's (or one service's) deploys per day, failures and durations, and each service's. */
export function DeployMetricsView() {
  const id = useId();
  // A service by its id: the same name may be in several environments.
  const [serviceId, setServiceId] = useState("");
  const [days, setDays] = useState<number>(DEFAULT_METRICS_DAYS);
  // The picker's services load when it is reached for: a fleet's worth of them would otherwise be
  // most of the page's first load (1,000 services: 55 kB), for a control most visits never open.
  const [picking, setPicking] = useState(false);
  const services = useAllServices(picking);
  // The per-service table lists the most deployed until "Show all" asks for every one.
  const [all, setAll] = useState(false);
  const metrics = useDeployMetrics(serviceId, days, all ? "all" : TOP_SERVICES);
  const chosen = services.data?.find((s) => s.id === serviceId);
  const options = [...(services.data ?? [])].sort(byName((s) => `${s.name} ${s.project} ${s.environment}`));
  const m = metrics.data;
  const now = new Date();
  return (
    <>
      <div className="row narrow-row">
        <div className="field">
          <label htmlFor={`${id}-service`}>Service</label>
          <select
            id={`${id}-service`}
            value={serviceId}
            onChange={(e) => setServiceId(e.target.value)}
            onFocus={() => setPicking(true)}
            onPointerDown={() => setPicking(true)}
            aria-busy={services.isFetching}
          >
            <option value="">All services</option>
            {picking && services.isPending && <option disabled>Loading services…</option>}
            {options.map((s) => (
              <option key={s.id} value={s.id}>
                {serviceLabel(s)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-since`}>Since</label>
          <select id={`${id}-since`} value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {METRICS_PERIODS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </div>
      </div>
      <Alert error={services.error} />
      {metrics.isPending && <p className="muted">Loading…</p>}
      <Alert error={metrics.error} />
      {m && (
        <div className={metrics.isPlaceholderData ? "stack stale" : "stack"} aria-busy={metrics.isPlaceholderData}>
          <PerDay title={chosen ? serviceLabel(chosen) : serviceId === "" ? "Whole fleet" : "this service"} buckets={fillDays(m.fleet, m.since, now)} total={totals(m.fleet)} />
          {serviceId === "" && <ByService metrics={m} now={now} showAll={() => setAll(true)} loading={all && metrics.isPlaceholderData} />}
        </div>
      )}
    </>
  );
}

const legend = (
  <p className="legend muted">
    <span className="swatch bar-ok" aria-hidden="true" /> deployed <span className="swatch bar-failed" aria-hidden="true" /> failed
  </p>
);

function PerDay({ title, buckets, total }: { title: string; buckets: DayBucket[]; total: Totals }) {
  const titleId = useId();
  const active = buckets.filter((d) => d.deploys + d.failed > 0).reverse();
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>Deploys per day: {title}</h2>
      <p>
        {total.deploys} deployed, {total.failed} failed, mean deploy duration {formatDuration(total.meanDurationMs)}.
      </p>
      <DeployChart days={buckets} label={`Deploys per day of ${title}`} />
      {legend}
      {active.length === 0 ? (
        <p className="muted">No deploys in this period.</p>
      ) : (
        <table aria-label={`Deploys per day of ${title}`}>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Deployed</th>
              <th scope="col">Failed</th>
              <th scope="col">Mean duration</th>
            </tr>
          </thead>
          <tbody>
            {active.map((d) => (
              <tr key={d.day}>
                <td>{d.day}</td>
                <td>{d.deploys}</td>
                <td>{d.failed}</td>
                <td>{formatDuration(d.meanDurationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function ByService({ metrics, now, showAll, loading }: { metrics: DeployMetrics; now: Date; showAll: () => void; loading: boolean }) {
  const titleId = useId();
  const rows = metrics.services
    // By id, never by name: `web` in staging and `web` in production are two rows with their own counts.
    .map((s) => ({ ...s, total: totals(s.days) }))
    .sort((a, b) => b.total.deploys + b.total.failed - (a.total.deploys + a.total.failed) || naturalCompare(a.service, b.service) || naturalCompare(a.environment, b.environment));
  return (
    <section className="card stack" aria-labelledby={titleId}>
      <h2 id={titleId}>By service</h2>
      {rows.length === 0 ? (
        <p className="muted">No service was deployed in this period.</p>
      ) : (
        <table aria-labelledby={titleId}>
          <thead>
            <tr>
              <th scope="col">Service</th>
              <th scope="col">Deploys per day</th>
              <th scope="col">Deployed</th>
              <th scope="col">Failed</th>
              <th scope="col">Mean duration</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((s) => (
              <tr key={s.serviceId}>
                <td>
                  {s.service} <span className="muted">in {s.environment}</span>
                </td>
                <td className="chart-cell">
                  <DeployChart days={fillDays(s.days, metrics.since, now)} label={`Deploys per day of ${s.service} in ${s.environment}`} compact />
                </td>
                <td>{s.total.deploys}</td>
                <td>{s.total.failed}</td>
                <td>{formatDuration(s.total.meanDurationMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <MoreServices shown={rows.length} total={metrics.servicesTotal} most="most deployed" onShowAll={showAll} loading={loading} />
    </section>
  );
}
