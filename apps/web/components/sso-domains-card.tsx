"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import type { SsoDomainView } from "@levelrail/services/org/sso-domains";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListTable } from "./list-card";

const enc = encodeURIComponent;

/**
 * The email domains the organization's single sign-on signs in (owners only): each needs the TXT
 * record a service's domain needs, holding the organization's token, before anybody of it signs in
 * through the connection. "Check now" asks the worker to look the record up at once.
 */
export function SsoDomainsCard({ org }: { org: OrgItem }) {
  const qc = useQueryClient();
  const key = keys.orgSsoDomains(org.id);
  const owner = org.can.includes("sso.write");
  const domains = useQuery({ queryKey: key, queryFn: () => api<SsoDomainView[]>(`/orgs/${enc(org.id)}/sso/domains`), refetchInterval: 10_000, enabled: owner });
  const [domain, setDomain] = useState("");
  const refresh = () => qc.invalidateQueries({ queryKey: key });
  const add = useMutation({
    mutationFn: (d: string) => api<SsoDomainView>(`/orgs/${enc(org.id)}/sso/domains`, { method: "POST", body: { domain: d } }),
    onSuccess: () => setDomain(""),
    onSettled: refresh,
  });
  const check = useMutation({ mutationFn: (d: string) => api(`/orgs/${enc(org.id)}/sso/domains/${enc(d)}/check`, { method: "POST" }), onSettled: refresh });
  const remove = useMutation({ mutationFn: (d: string) => api(`/orgs/${enc(org.id)}/sso/domains/${enc(d)}`, { method: "DELETE" }), onSettled: refresh });
  if (!owner) return null;

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    add.mutate(domain.trim());
  }

  return (
    <section className="card stack" aria-labelledby="sso-domains-title">
      <h2 id="sso-domains-title">SSO email domains</h2>
      {/* Not "single sign-on" in the heading: the connection's card is found by that name. */}
      <p className="muted">
        Single sign-on signs in (and links) only people whose email is at a domain {org.name} has proven it owns: create the TXT record shown, then Check now.
      </p>
      <ListTable
        source={{ data: domains.data, error: domains.error }}
        empty="No email domain yet: single sign-on signs in nobody."
        headers={["Domain", "Status", "Record to create", "Last check", ACTIONS]}
        labelledBy="sso-domains-title"
        rowKey={(d) => d.domain}
        row={(d) => (
          <tr>
            <td>{d.domain}</td>
            <td data-testid="sso-domain-status">{d.status}</td>
            <td>
              TXT <code>{d.record.name}</code> <code>{d.record.value}</code>
            </td>
            <td>{d.lastCheck ? `${d.lastCheck.result} (${new Date(d.lastCheck.at).toLocaleString()})` : "not yet"}</td>
            <td className="inline">
              <button type="button" className="secondary" disabled={check.isPending} onClick={() => check.mutate(d.domain)}>
                Check now
              </button>
              <button type="button" className="secondary" disabled={remove.isPending} onClick={() => remove.mutate(d.domain)}>
                Remove
              </button>
            </td>
          </tr>
        )}
      />
      <Alert error={check.error ?? remove.error} />
      <form className="inline" onSubmit={submit} aria-label="Add an email domain">
        <Field id="sso-email-domain" label="Email domain to add" error={add.error instanceof ApiError && add.error.field === "domain" ? add.error.message : undefined}>
          {(a) => <input {...a} value={domain} onChange={(e) => setDomain(e.target.value)} placeholder="example.com" required />}
        </Field>
        <button type="submit" disabled={add.isPending}>
          Add email domain
        </button>
      </form>
      <Alert error={add.error instanceof ApiError && add.error.field === "domain" ? null : add.error} />
    </section>
  );
}
