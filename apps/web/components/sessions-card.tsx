"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SessionView } from "@levelrail/auth/account";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { Alert } from "./alert";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";

const enc = encodeURIComponent;

/** The caller's signed-in browsers: this one marked; end one, or every other. */
export function SessionsCard() {
  const qc = useQueryClient();
  const sessions = useQuery({ queryKey: keys.sessions(), queryFn: () => api<SessionView[]>("/sessions") });
  const invalidate = () => qc.invalidateQueries({ queryKey: keys.sessions() });
  const end = useMutation({ mutationFn: (id: string) => api(`/sessions/${enc(id)}`, { method: "DELETE" }), onSettled: invalidate });
  const endOthers = useMutation({ mutationFn: () => api<{ ended: number }>("/sessions", { method: "DELETE" }), onSettled: invalidate });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;
  return (
    <ListCard
      id="sessions"
      title="Sessions"
      before={
        <>
          <p className="muted">Where you are signed in. Ending a session signs that browser out at its next request; API tokens are not sessions.</p>
          <Alert error={end.error ?? endOthers.error} />
        </>
      }
      source={sessions}
      empty="No sessions: API tokens are not sessions."
      headers={["Device", "Address", "Signed in", "Last active", ACTIONS]}
      rowKey={(s) => s.id}
      row={(s) => (
        <tr>
          <td>
            {s.userAgent ?? "unknown"} {s.current && <strong>(this browser)</strong>}
          </td>
          <td className="mono">{s.ipAddress ?? "—"}</td>
          <td>
            <Timestamp iso={s.createdAt} />
          </td>
          <td>
            <Timestamp iso={s.lastActiveAt} />
          </td>
          <td>
            {!s.current && (
              <button type="button" className="secondary" onClick={() => end.mutate(s.id)} disabled={end.isPending} aria-label={`End session ${s.userAgent ?? s.id}`}>
                End
              </button>
            )}
          </td>
        </tr>
      )}
    >
      {others > 0 && (
        <button type="button" className="secondary" onClick={() => endOthers.mutate()} disabled={endOthers.isPending}>
          End all other sessions
        </button>
      )}
    </ListCard>
  );
}
