"use client";
import { useQuery } from "@tanstack/react-query";
import { memo, useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ansiNodes } from "@/lib/ansi";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { type LogRow, appendCapped, logStreamUrl, visibleRows } from "@/lib/log-view";
import type { LogContainerView } from "@/lib/logs/service-logs";
import { type Scoped, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";

const SINCE = [
  ["", "Last 500 lines"],
  ["5m", "Last 5 minutes"],
  ["15m", "Last 15 minutes"],
  ["1h", "Last hour"],
  ["6h", "Last 6 hours"],
  ["24h", "Last 24 hours"],
] as const;

type Streaming = "connecting" | "live" | "reconnecting" | "ended";

interface LineData {
  container: string;
  stream: "stdout" | "stderr";
  at: string;
  line: string;
}
interface MarkerData {
  container: string;
  release: string | null;
  at: string;
  text: string;
}

/**
 * The service's container logs, followed live across deploys (a marker row where the stream moves
 * to a new container), with a search box, a "since" picker and a container picker (older,
 * draining and hook containers). Lines are untrusted: rendered as text with their ANSI colours.
 * It keeps the last 10,000 rows and renders at most the last 1,000 that match the search, so a
 * chatty container never freezes the page; new rows are applied once per animation frame.
 */
export function ServiceLogs({ service }: { service: Scoped }) {
  const id = useId();
  const [container, setContainer] = useState("");
  const [since, setSince] = useState("");
  const [search, setSearch] = useState("");
  const [rows, setRows] = useState<LogRow[]>([]);
  const [state, setState] = useState<Streaming>("connecting");
  const [problem, setProblem] = useState<string | null>(null);
  const containers = useQuery({
    queryKey: keys.logContainers(service),
    queryFn: () => api<LogContainerView[]>(serviceApi(service, "/logs/containers")),
    refetchInterval: 5000,
  });

  const { environmentId, name } = service;
  useEffect(() => {
    const target = { environmentId, name };
    let seq = 0;
    let pending: LogRow[] = [];
    let frame: number | null = null;
    let source: EventSource | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    let closed = false;
    let last: { container: string; at: string } | null = null;
    setRows([]);
    setProblem(null);
    const flush = () => {
      frame = null;
      const more = pending;
      pending = [];
      setRows((r) => appendCapped(r, more));
    };
    const add = (row: Omit<LogRow, "seq">) => {
      pending.push({ ...row, seq: seq++ });
      frame ??= requestAnimationFrame(flush);
    };
    const open = () => {
      setState(last ? "reconnecting" : "connecting");
      const es = new EventSource(logStreamUrl(target, { container, since, resumeAt: last?.at ?? null }));
      source = es;
      const resumedAt = last;
      es.onopen = () => setState("live");
      es.addEventListener("line", (e) => {
        const l = JSON.parse((e as MessageEvent<string>).data) as LineData;
        // After a reconnect the stream starts again at the last line shown: skip what is already here.
        if (resumedAt && l.container === resumedAt.container && l.at <= resumedAt.at) return;
        last = { container: l.container, at: l.at };
        add({ kind: "line", container: l.container, stream: l.stream, at: l.at, text: l.line });
      });
      es.addEventListener("marker", (e) => {
        const m = JSON.parse((e as MessageEvent<string>).data) as MarkerData;
        last = { container: m.container, at: m.at };
        add({ kind: "marker", container: m.container, stream: null, at: m.at, text: m.text });
      });
      es.addEventListener("failure", (e) => setProblem((JSON.parse((e as MessageEvent<string>).data) as { message: string }).message));
      es.addEventListener("end", () => {
        es.close();
        setState("ended");
      });
      es.onerror = () => {
        // EventSource would reconnect by itself with the same URL (and send lines twice): do it by hand, resuming.
        es.close();
        if (closed || es !== source) return;
        setState("reconnecting");
        retry = setTimeout(open, 2000);
      };
    };
    open();
    return () => {
      closed = true;
      source?.close();
      if (retry) clearTimeout(retry);
      if (frame !== null) cancelAnimationFrame(frame);
    };
  }, [environmentId, name, container, since]);

  const shown = useMemo(() => visibleRows(rows, search), [rows, search]);
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [shown]);

  const stateText = { connecting: "Connecting…", live: container ? "Following this container" : "Following the active container", reconnecting: "Connection lost; reconnecting…", ended: "The container stopped; no more lines." }[state];
  return (
    <section className="card stack" aria-labelledby={`${id}-title`} id="logs">
      <h2 id={`${id}-title`}>Logs</h2>
      <div className="log-filters">
        <div className="field">
          <label htmlFor={`${id}-search`}>Search</label>
          <input id={`${id}-search`} type="search" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="Filter lines" />
        </div>
        <div className="field">
          <label htmlFor={`${id}-since`}>Since</label>
          <select id={`${id}-since`} value={since} onChange={(e) => setSince(e.target.value)}>
            {SINCE.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-container`}>Container</label>
          <select id={`${id}-container`} value={container} onChange={(e) => setContainer(e.target.value)}>
            <option value="">Active (follows deploys)</option>
            {(containers.data ?? []).map((c) => (
              <option key={c.name} value={c.name}>
                {c.name} · {c.role === "service" ? "" : `${c.role} hook, `}
                {c.active ? "active" : c.state}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="muted" role="status">
        {stateText}
        {shown.matched > shown.rows.length ? ` · showing the last ${shown.rows.length} of ${shown.matched} lines` : ""}
      </p>
      {problem && (
        <Alert>
          {problem}
        </Alert>
      )}
      <div
        ref={box}
        className="log log-view"
        role="log"
        aria-label="Container logs"
        aria-live="off"
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {shown.rows.map((r) => (
          <Row key={r.seq} row={r} />
        ))}
      </div>
      {rows.length === 0 && state !== "connecting" && <p className="muted">No lines yet; they appear here as the container prints them.</p>}
    </section>
  );
}

/** One row; memoized, so a new line renders only itself. */
const Row = memo(function Row({ row }: { row: LogRow }) {
  if (row.kind === "marker") {
    return (
      <div className="log-marker" data-testid="log-marker">
        ── {row.text} ──
      </div>
    );
  }
  return (
    <div className={row.stream === "stderr" ? "log-line log-stderr" : "log-line"}>
      <span className="log-time">{row.at.slice(11, 23)}</span> {ansiNodes(row.text)}
    </div>
  );
});
