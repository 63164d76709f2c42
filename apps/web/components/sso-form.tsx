"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import type { SsoView } from "@levelrail/services/org/sso";
import { ROLES, type Role } from "@levelrail/spec/roles";
import { ApiError, api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";
import { Field } from "./field";
import { ACTIONS, ListTable } from "./list-card";

const enc = encodeURIComponent;
/** GET /orgs/{id}/sso's answer. */
export type Sso = SsoView & { redirectUri: string };
interface GroupRow {
  group: string;
  role: Role;
}

/** The single sign-on form of an owner (SsoCard, sso-card.tsx), from the connection's settings `data`. */
export function SsoForm({ org, data }: { org: OrgItem; data: Sso }) {
  const qc = useQueryClient();
  const key = keys.orgSso(org.id);
  const [groups, setGroups] = useState<GroupRow[]>([]);
  const [requireSso, setRequireSso] = useState(false);
  useEffect(() => {
    setGroups(Object.entries(data.groupRoles).map(([group, role]) => ({ group, role })));
    setRequireSso(data.requireSso);
  }, [data]);
  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) => api<Sso>(`/orgs/${enc(org.id)}/sso`, { method: "PUT", body }),
    onSuccess: (saved) => qc.setQueryData(key, saved),
  });
  const remove = useMutation({ mutationFn: () => api(`/orgs/${enc(org.id)}/sso`, { method: "DELETE" }), onSettled: () => qc.invalidateQueries({ queryKey: key }) });
  const fieldError = (name: string) => (save.error instanceof ApiError && save.error.field?.split(".")[0] === name ? save.error.message : undefined);

  function submit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (name: string) => String(f.get(name) ?? "").trim();
    const secret = text("clientSecret");
    save.mutate({
      issuer: text("issuer"),
      clientId: text("clientId"),
      ...(secret ? { clientSecret: secret } : {}),
      domain: text("domain"),
      defaultRole: text("defaultRole"),
      groupsClaim: text("groupsClaim") || null,
      groupRoles: Object.fromEntries(groups.filter((g) => g.group.trim()).map((g) => [g.group.trim(), g.role])),
      requireSso,
    });
  }

  return (
    <section className="card stack" aria-labelledby="sso-title">
      <h2 id="sso-title">Single sign-on</h2>
      <p className="muted">
        OpenID Connect (authorization code with PKCE). Register this redirect URI at your identity provider: <code>{data.redirectUri}</code>
      </p>
      <form className="stack" onSubmit={submit} key={data.configured ? "set" : "new"}>
        <Field id="sso-issuer" label="Issuer URL" error={fieldError("issuer")} hint="Its /.well-known/openid-configuration is read at each sign-in.">
          {(a) => <input {...a} name="issuer" defaultValue={data.issuer ?? ""} placeholder="https://id.example.com" required />}
        </Field>
        <Field id="sso-client" label="Client ID" error={fieldError("clientId")}>
          {(a) => <input {...a} name="clientId" defaultValue={data.clientId ?? ""} required />}
        </Field>
        <Field id="sso-secret" label={`Client secret (${data.clientSecretSet ? "set" : "not set"})`} error={fieldError("clientSecret")} hint="Sealed; never shown again. Leave empty to keep it.">
          {(a) => <input {...a} name="clientSecret" type="password" autoComplete="off" />}
        </Field>
        <Field id="sso-domain" label="Email domain" error={fieldError("domain")} hint="Your organization's email domain. Sign in with SSO sends people here only once the organization has proven the domain (Email domains, below).">
          {(a) => <input {...a} name="domain" defaultValue={data.domain ?? ""} placeholder="example.com" required />}
        </Field>
        <Field id="sso-role" label="Role of new members" error={fieldError("defaultRole")}>
          {(a) => (
            <select {...a} name="defaultRole" defaultValue={data.defaultRole}>
              {ROLES.filter((r) => r !== "owner").map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          )}
        </Field>
        <Field id="sso-claim" label="Groups claim" error={fieldError("groupsClaim")} hint="The claim holding the user's groups (often groups); empty: no mapping.">
          {(a) => <input {...a} name="groupsClaim" defaultValue={data.groupsClaim ?? ""} placeholder="groups" />}
        </Field>
        <h3 id="sso-groups-title">Groups → roles</h3>
        <ListTable
          source={{ data: groups, error: null }}
          empty="No group is mapped: new members get the role above, members keep theirs."
          headers={["Group", "Role", ACTIONS]}
          labelledBy="sso-groups-title"
          rowKey={(g) => `${groups.indexOf(g)}`}
          row={(g) => {
            const i = groups.indexOf(g);
            const set = (next: Partial<GroupRow>) => setGroups(groups.map((x, j) => (j === i ? { ...x, ...next } : x)));
            return (
              <tr>
                <td>
                  <input aria-label={`Group ${i + 1}`} value={g.group} onChange={(e) => set({ group: e.target.value })} />
                </td>
                <td>
                  <select aria-label={`Role of group ${i + 1}`} value={g.role} onChange={(e) => set({ role: e.target.value as Role })}>
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td>
                  <button type="button" className="secondary" onClick={() => setGroups(groups.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </td>
              </tr>
            );
          }}
        />
        <Alert error={fieldError("groupRoles")} />
        <button type="button" className="secondary" onClick={() => setGroups([...groups, { group: "", role: "developer" }])}>
          Map a group
        </button>
        <label className="inline">
          <input type="checkbox" checked={requireSso} onChange={(e) => setRequireSso(e.target.checked)} />
          <span>Require single sign-on: members who sign in with a password cannot use {org.name} (API tokens are not affected).</span>
        </label>
        {fieldError("requireSso") && <Alert>{fieldError("requireSso")}</Alert>}
        <Alert error={save.error instanceof ApiError && save.error.field ? null : save.error} />
        <div className="inline">
          <button type="submit" disabled={save.isPending}>
            Save single sign-on
          </button>
          {data.configured && (
            <button type="button" className="secondary" disabled={remove.isPending} onClick={() => remove.mutate()}>
              Remove single sign-on
            </button>
          )}
        </div>
        {save.isSuccess && <p role="status">Single sign-on saved.</p>}
      </form>
    </section>
  );
}
