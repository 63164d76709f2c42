import { ScopeSelect } from "@/components/scope-select";
import { SsoCard } from "@/components/sso-card";
import { SsoDomainsCard } from "@/components/sso-domains-card";
import { type ScopeParams, settingsOrg } from "@/lib/settings-scope";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Single sign-on · Levelrail" };

/** Settings › Single sign-on: an organization's OpenID Connect connection (owners set it up; the card asks for it). */
export default async function SsoPage({ searchParams }: { searchParams: ScopeParams }) {
  const { orgs, org } = await settingsOrg(await requireCtx(), searchParams);
  return (
    <>
      <h1>Single sign-on</h1>
      {org ? (
        <>
          <ScopeSelect id="org-select" label="Organization" param="org" value={org.id} options={orgs.map(({ id, name }) => ({ id, name }))} />
          <SsoCard org={org} />
          <SsoDomainsCard org={org} />
        </>
      ) : (
        <p className="muted">You belong to no organization.</p>
      )}
    </>
  );
}
