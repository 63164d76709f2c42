"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { SessionView } from "@levelrail/auth/account";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import { Alert } from "./alert";
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
    <section className="card stack" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Sessions</h2>
      <p className="muted">Where you are signed in. Ending a session signs that browser out at its next request; API tokens are not sessions.</p>
      <Alert error={sessions.error ?? end.error ?? endOthers.error} />
      {sessions.data && (
        <table aria-labelledby="sessions-title">
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Address</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((s) => (
              <tr key={s.id}>
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
            ))}
          </tbody>
        </table>
      )}
      {others > 0 && (
        <button type="button" className="secondary" onClick={() => endOthers.mutate()} disabled={endOthers.isPending}>
          End all other sessions
        </button>
      )}
    </section>
  );
}
