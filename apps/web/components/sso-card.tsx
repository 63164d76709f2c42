"use client";
import { useQuery } from "@tanstack/react-query";
import { Suspense, lazy } from "react";
import { api } from "@/lib/fetcher";
import { keys } from "@/lib/keys";
import type { OrgItem } from "@/lib/types";
import { Alert } from "./alert";
import type { Sso } from "./sso-form";

/**
 * The form, in its own chunk: only an owner sees it, and only once the connection's settings have
 * come (asked here, so the chunk and the settings load side by side). React.lazy, not next/dynamic:
 * the page has no other next/dynamic, and its runtime would cost more than the chunk saves.
 */
const SsoForm = lazy(() => import("./sso-form").then((m) => ({ default: m.SsoForm })));

/**
 * The organization's single sign-on (owners only): one OpenID Connect connection — issuer, client,
 * the email domain whose users it signs in, the role newcomers get, a groups claim mapped to roles,
 * and whether members must sign in through it. The client secret is write-only: set or not set.
 */
export function SsoCard({ org }: { org: OrgItem }) {
  if (!org.can.includes("sso.write")) {
    return (
      <section className="card stack" aria-labelledby="sso-title">
        <h2 id="sso-title">Single sign-on</h2>
        <p className="muted">Only an owner of {org.name} sets up single sign-on (you are a {org.role}).</p>
      </section>
    );
  }
  return <OwnerSso org={org} />;
}

function OwnerSso({ org }: { org: OrgItem }) {
  const sso = useQuery({ queryKey: keys.orgSso(org.id), queryFn: () => api<Sso>(`/orgs/${encodeURIComponent(org.id)}/sso`) });
  if (!sso.data) return <Alert error={sso.error} />;
  return (
    <Suspense fallback={null}>
      <SsoForm org={org} data={sso.data} />
    </Suspense>
  );
}
