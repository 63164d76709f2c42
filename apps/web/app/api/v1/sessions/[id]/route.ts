import { endOwnSession } from "@levelrail/services/org/security";
import { noContent, route } from "@/lib/api";

/** Ends one of the caller's sessions (that browser is signed out); someone else's is a 404. */
export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await endOwnSession({ ctx, id: params.id });
  return noContent();
});
