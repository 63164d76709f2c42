import { createOrg } from "@levelrail/services/org/create";
import { listOrgs } from "@levelrail/services/org/list";
import { created, json, route } from "@/lib/api";

export const GET = route(async ({ ctx }) => json(await listOrgs({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createOrg({ ctx, input: await body() })));
