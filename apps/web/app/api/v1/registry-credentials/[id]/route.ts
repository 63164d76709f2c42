import { deleteRegistryCredential } from "@levelrail/services/config/registry-credentials";
import { noContent, route } from "@/lib/api";

export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await deleteRegistryCredential({ ctx, id: params.id });
  return noContent();
});
