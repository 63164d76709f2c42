import { endSession } from "@levelrail/auth/account";
import { noContent, route } from "@/lib/api";

/** Ends one of the caller's sessions (that browser is signed out); someone else's is a 404. */
export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await endSession(ctx.db, ctx.actor.userId, params.id);
  return noContent();
});
