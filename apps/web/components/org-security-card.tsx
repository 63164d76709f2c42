"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { OrgSecurityView } from "@levelrail/services/org/security";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";

const enc = encodeURIComponent;

/**
 * An organization's sign-in rules: require a second factor of every member; and, for owners, each
 * member's second factor with a reset (a lost device) and a sign-out everywhere. (A minimal list
 * until the Members page carries these buttons.)
 */
export function OrgSecurityCard({ org }: { org: OrgItem }) {
  const qc = useQueryClient();
  const key = keys.orgSecurity(org.id);
  const security = useQuery({ queryKey: key, queryFn: () => api<OrgSecurityView>(`/orgs/${enc(org.id)}/security`) });
  const invalidate = () => qc.invalidateQueries({ queryKey: key });
  const setRequired = useMutation({
    mutationFn: (require2fa: boolean) => api<OrgSecurityView>(`/orgs/${enc(org.id)}/security`, { method: "PUT", body: { require2fa } }),
    onSettled: invalidate,
  });
  const reset = useMutation({ mutationFn: (userId: string) => api(`/orgs/${enc(org.id)}/members/${enc(userId)}/two-factor`, { method: "DELETE" }), onSettled: invalidate });
  const signOut = useMutation({ mutationFn: (userId: string) => api(`/orgs/${enc(org.id)}/members/${enc(userId)}/sessions`, { method: "DELETE" }) });
  const data = security.data;
  return (
    <section className="card stack" aria-labelledby="org-security-title">
      <h2 id="org-security-title">Sign-in security</h2>
      <Alert error={security.error ?? setRequired.error ?? reset.error ?? signOut.error} />
      {data && (
        <label className="inline">
          <input
            type="checkbox"
            checked={data.require2fa}
            disabled={!data.owner || setRequired.isPending}
            onChange={(e) => setRequired.mutate(e.target.checked)}
          />
          <span>
            Require a second factor: members without one are sent to set it up before they use {org.name} (API tokens are not affected).
          </span>
        </label>
      )}
      {data && data.owner && (
        <table aria-label="Members' sign-in">
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Role</th>
              <th scope="col">Second factor</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {data.members.map((m) => (
              <tr key={m.userId}>
                <td>{m.email}</td>
                <td>{m.role}</td>
                <td>{m.twoFactorEnabled ? "on" : "off"}</td>
                <td className="inline">
                  {m.twoFactorEnabled && (
                    <button type="button" className="secondary" disabled={reset.isPending} onClick={() => reset.mutate(m.userId)} aria-label={`Reset second factor of ${m.email}`}>
                      Reset second factor
                    </button>
                  )}
                  <button type="button" className="secondary" disabled={signOut.isPending} onClick={() => signOut.mutate(m.userId)} aria-label={`Sign out ${m.email} everywhere`}>
                    Sign out everywhere
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {signOut.isSuccess && <p role="status">Signed out everywhere.</p>}
    </section>
  );
}
