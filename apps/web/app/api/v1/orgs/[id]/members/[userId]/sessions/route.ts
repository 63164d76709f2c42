import { signOutMember } from "@levelrail/services/org/security";
import { json, route } from "@/lib/api";

type Params = { id: string; userId: string };

/** An owner signs a member out: every session, or of a member of other organizations too, those that act in this one only (`sessionsKept` counts the others). API tokens are not sessions. */
export const DELETE = route<Params>(async ({ ctx, params }) => json(await signOutMember({ ctx, orgId: params.id, userId: params.userId })));
