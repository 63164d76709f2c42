import { listMembers } from "@levelrail/services/org/members";
import { json, route } from "@/lib/api";

type Params = { id: string };

/** The organization's members with their roles, oldest first (any member may list them). */
export const GET = route<Params>(async ({ ctx, params }) => json(await listMembers({ ctx, orgId: params.id })));
