import { createRegistryCredential, listRegistryCredentials } from "@levelrail/services/config/registry-credentials";
import { created, json, route } from "@/lib/api";

/** Private registry logins; the password is write-only (never answered). */
export const GET = route(async ({ ctx }) => json(await listRegistryCredentials({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createRegistryCredential({ ctx, input: await body() })));
