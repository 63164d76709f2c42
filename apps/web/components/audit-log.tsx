"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { AuditEntryView } from "@levelrail/services/audit/list";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { ListCard } from "./list-card";

const FILTERS = [
  { name: "actor", label: "Actor", hint: "a user's or token's id, or user, token, cli, worker" },
  { name: "action", label: "Action", hint: "service.deploy" },
  { name: "target", label: "Target", hint: "an id, a type, or type:name (service:web)" },
  { name: "since", label: "From", hint: "2026-12-01T00:00:00Z" },
  { name: "until", label: "To", hint: "2026-12-02T00:00:00Z" },
] as const;

type Page = { entries: AuditEntryView[]; nextCursor: string | null };

const query = (filters: Record<string, string>, extra: Record<string, string> = {}) => new URLSearchParams({ ...filters, ...extra }).toString();

/** The audit log of one organization: filters, a page at a time (newest first), and the JSON-lines export of every match. */
export function AuditLog({ orgs, initialOrgId }: { orgs: OrgItem[]; initialOrgId: string }) {
  const [orgId, setOrgId] = useState(initialOrgId);
  const [filters, setFilters] = useState<Record<string, string>>({});
  // The cursors of the pages before this one: Newer pops, Older pushes.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1] ?? "";
  const page = useQuery({
    queryKey: keys.audit(orgId, filters, cursor),
    queryFn: () => api<Page>(`/orgs/${orgId}/audit?${query(filters, cursor ? { cursor } : {})}`),
    placeholderData: keepPreviousData,
  });

  const apply = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    const next: Record<string, string> = {};
    for (const f of FILTERS) {
      const v = String(form.get(f.name) ?? "").trim();
      if (v) next[f.name] = v;
    }
    setFilters(next);
    setCursors([]);
  };

  const filtersForm = (
    <form className="stack" onSubmit={apply} aria-label="Audit filters">
      {orgs.length > 1 && (
        <label>
          Organization{" "}
          <select value={orgId} onChange={(e) => (setOrgId(e.target.value), setCursors([]))}>
            {orgs.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <div className="row">
        {FILTERS.map((f) => (
          <label key={f.name}>
            {f.label} <input name={f.name} placeholder={f.hint} defaultValue={filters[f.name] ?? ""} />
          </label>
        ))}
        <button type="submit">Filter</button>
        <a href={`/api/v1/orgs/${orgId}/audit?${query(filters, { format: "jsonl" })}`} download>
          Export JSON lines
        </a>
      </div>
    </form>
  );

  return (
    <ListCard<AuditEntryView>
      id="audit"
      title="Entries"
      before={filtersForm}
      source={{ data: page.data?.entries, error: page.error, isPending: page.isPending }}
      empty="No entries match."
      headers={["Time", "Actor", "Action", "Target", "Fields", "Source"]}
      rowKey={(e) => e.id}
      row={(e) => (
        <tr>
          <td>
            <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
          </td>
          <td>
            {e.actor.name} <span className="muted">({e.actor.type})</span>
          </td>
          <td>
            <code>{e.action}</code>
          </td>
          <td>
            {e.target.type} {e.target.name ?? e.target.id ?? ""}
          </td>
          <td>{e.fields.join(", ")}</td>
          <td>{e.sourceIp ?? ""}</td>
        </tr>
      )}
    >
      <div className="row">
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          Newer
        </button>
        <button type="button" disabled={!page.data?.nextCursor} onClick={() => page.data?.nextCursor && setCursors((c) => [...c, page.data.nextCursor!])}>
          Older
        </button>
      </div>
    </ListCard>
  );
}
