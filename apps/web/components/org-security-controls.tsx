"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "@/components/link";
import type { OrgSecurityView } from "@levelrail/services/org/security";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";

const enc = encodeURIComponent;

/** OrgSecurityCard's body, from the policy `data`: the require-a-second-factor box (owners change it) and, for owners, where members' factors are. */
export function OrgSecurityControls({ org, data }: { org: OrgItem; data: OrgSecurityView }) {
  const qc = useQueryClient();
  const setRequired = useMutation({
    mutationFn: (require2fa: boolean) => api<OrgSecurityView>(`/orgs/${enc(org.id)}/security`, { method: "PUT", body: { require2fa } }),
    onSettled: () => qc.invalidateQueries({ queryKey: keys.orgSecurity(org.id) }),
  });
  return (
    <>
      <Alert error={setRequired.error} />
      <label className="inline">
        <input type="checkbox" checked={data.require2fa} disabled={!data.owner || setRequired.isPending} onChange={(e) => setRequired.mutate(e.target.checked)} />
        <span>Require a second factor: members without one are sent to set it up before they use {org.name} (API tokens are not affected).</span>
      </label>
      {data.owner && (
        <p className="muted">
          Each member&apos;s second factor, its reset (a lost device) and a sign-out everywhere are on{" "}
          <Link href={`/settings/members?org=${enc(org.id)}`}>Members</Link>.
        </p>
      )}
    </>
  );
}
