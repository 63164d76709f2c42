"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { OrgSecurityView } from "@levelrail/services/org/security";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";

const enc = encodeURIComponent;

/**
 * An organization's sign-in policy: require a second factor of every member. Each member's second
 * factor, its reset (a lost device) and a sign-out everywhere are on the one members list
 * (Settings → Members), for owners.
 */
export function OrgSecurityCard({ org }: { org: OrgItem }) {
  const qc = useQueryClient();
  const key = keys.orgSecurity(org.id);
  const security = useQuery({ queryKey: key, queryFn: () => api<OrgSecurityView>(`/orgs/${enc(org.id)}/security`) });
  const setRequired = useMutation({
    mutationFn: (require2fa: boolean) => api<OrgSecurityView>(`/orgs/${enc(org.id)}/security`, { method: "PUT", body: { require2fa } }),
    onSettled: () => qc.invalidateQueries({ queryKey: key }),
  });
  const data = security.data;
  return (
    <section className="card stack" aria-labelledby="org-security-title">
      <h2 id="org-security-title">Sign-in security</h2>
      <Alert error={security.error ?? setRequired.error} />
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
      {data?.owner && (
        <p className="muted">
          Each member&apos;s second factor, its reset (a lost device) and a sign-out everywhere are on{" "}
          <Link href={`/settings/members?org=${enc(org.id)}`}>Members</Link>.
        </p>
      )}
    </section>
  );
}
