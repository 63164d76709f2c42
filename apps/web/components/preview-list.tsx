"use client";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import Link from "@/components/link";
import { RoleNote } from "@/components/role-note";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { ProjectPreviews } from "@/lib/types";

type Preview = ProjectPreviews["previews"][number];

/**
 * A project's previews (PreviewsCard, when it has any): each request's head commit, environment, state
 * and last message. A fork's or an outsider's request waits for a member with deploy rights to approve
 * its head commit ("Approve preview"); what its clone left out of the base is listed under it.
 */
export function PreviewList({ projectId, previews, approveDenied = null }: { projectId: string; previews: ProjectPreviews["previews"]; approveDenied?: string | null }) {
  return (
    <table aria-label="Previews">
      <thead>
        <tr>
          <th scope="col">Request</th>
          <th scope="col">Head commit</th>
          <th scope="col">Environment</th>
          <th scope="col">State</th>
          <th scope="col">Message</th>
        </tr>
      </thead>
      <tbody>
        {previews.map((p) => (
          <tr key={p.id}>
            <th scope="row">
              #{p.number} <span className="muted">{p.headRef}</span>
              {p.fork || p.outsider ? <span className="muted"> ({p.fork ? "fork" : "outside author"})</span> : null}
            </th>
            <td>
              <code title={p.headCommit}>{p.headCommit.slice(0, 12)}</code>
            </td>
            <td>{p.environmentId ? <Link href={`/environments/${p.environmentId}`}>{p.environmentName ?? "environment"}</Link> : <span className="muted">none</span>}</td>
            <td className={p.state === "refused" ? "error" : undefined}>
              {p.state}
              {p.state === "open" && p.approval === "awaiting" ? " (awaiting approval)" : null}
              {p.url && p.state === "open" ? (
                <>
                  {" "}
                  <a href={p.url}>{new URL(p.url).host}</a>
                </>
              ) : null}
              {p.state === "open" && p.approval === "awaiting" ? <ApproveButton projectId={projectId} preview={p} denied={approveDenied} /> : null}
            </td>
            <td>
              {p.message}
              {p.withheld.length > 0 ? (
                <div className="muted">Withheld from the base: {p.withheld.map((w) => `${w.service ? `${w.service} ` : ""}${w.key} (${w.kind})`).join(", ")}</div>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Approves the head commit shown (the API refuses it if the request has moved on since). */
function ApproveButton({ projectId, preview, denied }: { projectId: string; preview: Preview; denied: string | null }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  async function approve() {
    setBusy(true);
    setError(null);
    try {
      await api(`/projects/${encodeURIComponent(projectId)}/previews/${encodeURIComponent(preview.id)}/approve`, { method: "POST", body: { commit: preview.headCommit } });
      await qc.invalidateQueries({ queryKey: keys.previews(projectId) });
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <div>
      <button
        type="button"
        onClick={() => void approve()}
        disabled={busy || denied !== null}
        aria-describedby={denied ? `approve-note-${preview.id}` : undefined}
        title={`Build ${preview.headCommit.slice(0, 12)} without the base's secrets`}
      >
        Approve preview
      </button>
      <RoleNote id={`approve-note-${preview.id}`} denied={denied} />
      {error ? <p className="error">{error}</p> : null}
    </div>
  );
}
