import { resetMemberSecondFactor } from "@levelrail/services/org/security";
import { json, route } from "@/lib/api";

type Params = { id: string; userId: string };

/** A lost device: an owner removes a member's second factor; they sign in with their password and enrol again. */
export const DELETE = route<Params>(async ({ ctx, params }) => json(await resetMemberSecondFactor({ ctx, orgId: params.id, userId: params.userId })));
