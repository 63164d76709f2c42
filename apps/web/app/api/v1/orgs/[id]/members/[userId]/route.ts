import { changeMemberRole, removeMember } from "@levelrail/services/org/members";
import { json, noContent, route } from "@/lib/api";

type Params = { id: string; userId: string };

/** `{"role": "owner"|"admin"|"developer"|"viewer"}` (owner or admin; only an owner touches ownership; the last owner stays one: 409). */
export const PATCH = route<Params>(async ({ ctx, params, body }) => json(await changeMemberRole({ ctx, orgId: params.id, userId: params.userId, input: await body() })));

/** Removes a member (owner or admin), or leaves (`userId` is the caller's own, or `me`); the last owner cannot (409). */
export const DELETE = route<Params>(async ({ ctx, params }) => {
  await removeMember({ ctx, orgId: params.id, userId: params.userId });
  return noContent();
});
