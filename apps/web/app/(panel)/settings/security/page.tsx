import { OrgSecurityCard } from "@/components/org-security-card";
import { ScopeSelect } from "@/components/scope-select";
import { type ScopeParams, settingsOrg } from "@/lib/settings-scope";
import { requireCtx } from "@/lib/session";

export const metadata = { title: "Sign-in security · Levelrail" };

/** Settings › Sign-in security: an organization's sign-in policy (the card asks for it: see OrgSecurityCard). */
export default async function SecurityPage({ searchParams }: { searchParams: ScopeParams }) {
  const { orgs, org } = await settingsOrg(await requireCtx(), searchParams);
  return (
    <>
      <h1>Sign-in security</h1>
      {org ? (
        <>
          <ScopeSelect id="org-select" label="Organization" param="org" value={org.id} options={orgs.map(({ id, name }) => ({ id, name }))} />
          <OrgSecurityCard org={org} />
        </>
      ) : (
        <p className="muted">You belong to no organization.</p>
      )}
    </>
  );
}
