import { deleteGitCredential } from "@levelrail/services/git/credentials";
import { noContent, route } from "@/lib/api";

type Params = { id: string; credId: string };

/** Deletes a git credential; 409 naming the services whose source uses it. */
export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteGitCredential({ ctx, orgId: params.id, id: params.credId });
  return noContent();
});
