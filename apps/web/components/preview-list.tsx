"use client";
import Link from "@/components/link";
import type { ProjectPreviews } from "@/lib/types";

/** A project's previews (PreviewsCard, when it has any): each request's head commit, environment, state and last message. */
export function PreviewList({ previews }: { previews: ProjectPreviews["previews"] }) {
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
            </th>
            <td>
              <code title={p.headCommit}>{p.headCommit.slice(0, 12)}</code>
            </td>
            <td>{p.environmentId ? <Link href={`/environments/${p.environmentId}`}>{p.environmentName ?? "environment"}</Link> : <span className="muted">none</span>}</td>
            <td className={p.state === "refused" ? "error" : undefined}>
              {p.state}
              {p.url && p.state === "open" ? (
                <>
                  {" "}
                  <a href={p.url}>{new URL(p.url).host}</a>
                </>
              ) : null}
            </td>
            <td>{p.message}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
