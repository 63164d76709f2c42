"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import type { BuildView } from "@levelrail/services/build/view";
import { ansiNodes } from "@/lib/ansi";
import { buildBadge, buildDuration } from "@/lib/build-format";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { type Scoped, serviceApi } from "@/lib/paths";
import { Alert } from "./alert";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";

const LIVE = new Set<BuildView["status"]>(["queued", "running"]);

/**
 * The service's builds (newest first) with "Build now", per build its status, commit, step and
 * duration, a Cancel button while it is queued or running, and the chosen build's log, followed live
 * (Server-Sent Events) until it ends. Log lines are untrusted: rendered as text with their ANSI colours.
 */
export function BuildsCard({ service, denied }: { service: Scoped; denied: string | null }) {
  const qc = useQueryClient();
  const builds = useQuery({
    queryKey: keys.builds(service),
    queryFn: () => api<BuildView[]>(serviceApi(service, "/builds")),
    refetchInterval: (q) => ((q.state.data ?? []).some((b) => LIVE.has(b.status)) ? 1000 : 10_000),
  });
  const [chosen, setChosen] = useState<string | null>(null);
  const shown = chosen ?? builds.data?.[0]?.id ?? null;
  const start = useMutation({
    mutationFn: () => api<BuildView>(serviceApi(service, "/builds"), { method: "POST", body: {} }),
    onSuccess: (b) => {
      setChosen(b.id);
      qc.setQueryData<BuildView[]>(keys.builds(service), (list) => [b, ...(list ?? []).filter((x) => x.id !== b.id)]);
      return qc.invalidateQueries({ queryKey: keys.builds(service) });
    },
  });
  return (
    <ListCard
      id="builds"
      title="Builds"
      before={
        <div className="inline">
          <button type="button" disabled={denied !== null || start.isPending} title={denied ?? undefined} onClick={() => start.mutate()}>
            Build now
          </button>
          <Alert inline error={start.error} />
        </div>
      }
      source={builds}
      empty="No builds yet. A push to the tracked branch, a poll or “Build now” starts one."
      headers={["Time", "Commit", "Trigger", "Duration", "Status", ACTIONS]}
      rowKey={(b) => b.id}
      row={(b) => <BuildRow service={service} build={b} selected={b.id === shown} denied={denied} onShow={() => setChosen(b.id)} />}
    >
      {shown && <BuildLog key={shown} service={service} buildId={shown} />}
    </ListCard>
  );
}

function BuildRow({ service, build: b, selected, denied, onShow }: { service: Scoped; build: BuildView; selected: boolean; denied: string | null; onShow: () => void }) {
  const qc = useQueryClient();
  const cancel = useMutation({
    mutationFn: () => api<BuildView>(serviceApi(service, `/builds/${encodeURIComponent(b.id)}/cancel`), { method: "POST" }),
    onSuccess: () => qc.invalidateQueries({ queryKey: keys.builds(service) }),
  });
  const badge = buildBadge(b);
  return (
    <tr className={selected ? "selected" : undefined} data-testid={`build-${b.id}`}>
      <td>
        <Timestamp iso={b.createdAt} />
      </td>
      <td>
        <code className="mono nowrap" title={b.commit ?? b.ref}>
          {b.commit ? b.commit.slice(0, 12) : b.ref}
        </code>
      </td>
      <td>{b.trigger}</td>
      <td className="nowrap">{buildDuration(b)}</td>
      <td>
        <span className={`badge ${badge.className}`} data-testid="build-status">
          {badge.label}
        </span>
        {b.status === "failed" && b.step && <div className="mono">{b.step}</div>}
        {b.message && <div className="muted message">{b.message}</div>}
        <Alert inline error={cancel.error} />
      </td>
      <td>
        <span className="inline nowrap">
          <button type="button" className="secondary" onClick={onShow} aria-pressed={selected}>
            Log
          </button>
          {LIVE.has(b.status) && (
            <button type="button" className="secondary" disabled={denied !== null || cancel.isPending} onClick={() => cancel.mutate()}>
              Cancel
            </button>
          )}
        </span>
      </td>
    </tr>
  );
}

/** One build's log: every line so far, then each new one live until the build ends. */
function BuildLog({ service, buildId }: { service: Scoped; buildId: string }) {
  const [lines, setLines] = useState<{ at: string; line: string }[]>([]);
  const [state, setState] = useState<"connecting" | "live" | "ended" | "failed">("connecting");
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);
  const { environmentId, name } = service;
  useEffect(() => {
    const es = new EventSource(`/api/v1${serviceApi({ environmentId, name }, `/builds/${encodeURIComponent(buildId)}`)}?follow=true`);
    setLines([]);
    es.onopen = () => setState("live");
    es.addEventListener("line", (e) => {
      const l = JSON.parse((e as MessageEvent<string>).data) as { at: string; line: string };
      setLines((all) => (all.length >= 20_000 ? all : [...all, { at: l.at, line: l.line }]));
    });
    es.addEventListener("end", () => {
      es.close();
      setState("ended");
    });
    // The stream restarts from the first line on its own; a failure that persists is said.
    es.onerror = () => {
      es.close();
      setState("failed");
    };
    return () => es.close();
  }, [environmentId, name, buildId]);
  useLayoutEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lines]);
  const said = { connecting: "Connecting…", live: "Following the build's log", ended: "The build has ended.", failed: "The log stream was cut; choose the build again to reload it." }[state];
  return (
    <div className="stack">
      <p className="muted" role="status">
        Build {buildId.slice(0, 8)}: {said}
      </p>
      <div
        ref={box}
        className="log log-view"
        role="log"
        aria-label="Build log"
        tabIndex={0}
        onScroll={(e) => {
          const el = e.currentTarget;
          follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
        }}
      >
        {lines.map((l, i) => (
          <div key={i} className="log-line">
            {ansiNodes(l.line)}
          </div>
        ))}
      </div>
    </div>
  );
}
