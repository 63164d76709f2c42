import { revokeToken } from "@levelrail/services/operator/tokens";
import { noContent, route } from "@/lib/api";

/** Revokes one of the caller's tokens at once; another operator's is a 404 like one that does not exist. */
export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await revokeToken({ ctx, id: params.id });
  return noContent();
});
