import { deleteBackupTarget } from "@levelrail/services/config/backup-targets";
import { noContent, route } from "@/lib/api";

export const DELETE = route<{ id: string }>(async ({ ctx, params }) => {
  await deleteBackupTarget({ ctx, id: params.id });
  return noContent();
});
