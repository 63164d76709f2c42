import { getOrgSecurity, setOrgSecurity } from "@levelrail/services/org/security";
import { json, route } from "@/lib/api";

type Params = { id: string };

/** `{orgId, require2fa}`. */
export const GET = route<Params>(async ({ ctx, params }) => json(await getOrgSecurity({ ctx, orgId: params.id })));

/** `{"require2fa": true}`: members need a second factor to use the organization with a session (owners only). */
export const PUT = route<Params>(async ({ ctx, params, body }) => json(await setOrgSecurity({ ctx, orgId: params.id, input: await body() })));
