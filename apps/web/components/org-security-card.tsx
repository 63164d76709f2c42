"use client";
import { useQuery } from "@tanstack/react-query";
import { Suspense, lazy } from "react";
import type { OrgSecurityView } from "@levelrail/services/org/security";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";

/**
 * The policy's control, in its own chunk: it shows once the policy has come, which the browser
 * asks (so it is never in the first render; the chunk loads beside the answer).
 */
const OrgSecurityControls = lazy(() => import("./org-security-controls").then((m) => ({ default: m.OrgSecurityControls })));

/**
 * An organization's sign-in policy: require a second factor of every member. Each member's second
 * factor, its reset (a lost device) and a sign-out everywhere are on the one members list
 * (Settings → Members), for owners.
 */
export function OrgSecurityCard({ org }: { org: OrgItem }) {
  const security = useQuery({ queryKey: keys.orgSecurity(org.id), queryFn: () => api<OrgSecurityView>(`/orgs/${encodeURIComponent(org.id)}/security`) });
  return (
    <section className="card stack" aria-labelledby="org-security-title">
      <h2 id="org-security-title">Sign-in security</h2>
      <Alert error={security.error} />
      {security.data && (
        <Suspense fallback={null}>
          <OrgSecurityControls org={org} data={security.data} />
        </Suspense>
      )}
    </section>
  );
}
