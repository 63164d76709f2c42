import { addSsoDomain, listSsoDomains } from "@levelrail/services/org/sso-domains";
import { created, json, route } from "@/lib/api";

type Params = { id: string };

/** The email domains the organization's single sign-on signs in, each with its proof (owners only). */
export const GET = route<Params>(async ({ ctx, params }) => json(await listSsoDomains({ ctx, orgId: params.id })));

/** `{domain}`: adds an email domain, pending until the TXT record it answers holds the organization's token (owners only). */
export const POST = route<Params>(async ({ ctx, params, body }) => created(await addSsoDomain({ ctx, orgId: params.id, input: await body() })));
