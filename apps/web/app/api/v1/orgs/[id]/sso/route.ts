import { deleteSso, getSso, setSso } from "@levelrail/services/org/sso";
import { ssoProviderId } from "@levelrail/auth/sso";
import { json, noContent, route } from "@/lib/api";
import { server } from "@/lib/server";

type Params = { id: string };

/** The redirect URI to register at the identity provider. */
const redirectUri = (orgId: string) => `${server().publicUrl.replace(/\/$/, "")}/api/auth/callback/${ssoProviderId(orgId)}`;

/** The organization's OpenID Connect connection (owners only); the client secret only as `clientSecretSet`. */
export const GET = route<Params>(async ({ ctx, params }) => {
  const view = await getSso({ ctx, orgId: params.id });
  return json({ ...view, redirectUri: redirectUri(view.orgId) });
});

/** `{issuer, clientId, clientSecret?, domain, defaultRole, groupsClaim, groupRoles, requireSso}` (owners only). */
export const PUT = route<Params>(async ({ ctx, params, body }) => {
  const view = await setSso({ ctx, orgId: params.id, input: await body() });
  return json({ ...view, redirectUri: redirectUri(view.orgId) });
});

/** Removes the connection (owners only). */
export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteSso({ ctx, orgId: params.id });
  return noContent();
});
