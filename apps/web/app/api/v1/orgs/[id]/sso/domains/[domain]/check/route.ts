import { checkSsoDomain } from "@levelrail/services/org/sso-domains";
import { accepted, route } from "@/lib/api";

/** "Check now": the worker looks the email domain's TXT record up at once (owners only). */
export const POST = route<{ id: string; domain: string }>(async ({ ctx, params }) => accepted(await checkSsoDomain({ ctx, orgId: params.id, domain: params.domain })));
