import { revokeInvitation } from "@levelrail/services/org/invitations";
import { noContent, route } from "@/lib/api";

type Params = { id: string; invitationId: string };

/** Revokes a pending invitation (owner or admin): its link stops working at once. */
export const DELETE = route<Params>(async ({ ctx, params }) => {
  await revokeInvitation({ ctx, orgId: params.id, id: params.invitationId });
  return noContent();
});
