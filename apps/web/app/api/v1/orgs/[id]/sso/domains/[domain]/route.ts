import { removeSsoDomain } from "@levelrail/services/org/sso-domains";
import { noContent, route } from "@/lib/api";

/** Removes an email domain: the single sign-on no longer signs in its people (owners only). */
export const DELETE = route<{ id: string; domain: string }>(async ({ ctx, params }) => {
  await removeSsoDomain({ ctx, orgId: params.id, domain: params.domain });
  return noContent();
});
