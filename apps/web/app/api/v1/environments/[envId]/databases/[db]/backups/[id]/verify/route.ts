import { requestVerify } from "@levelrail/services/database/backups";
import { accepted, route } from "@/lib/api";

/** Verify again, from the object in storage: 202 with the backup. */
export const POST = route<{ envId: string; db: string; id: string }>(async ({ ctx, params }) =>
  accepted(await requestVerify({ ctx, envId: params.envId, name: params.db, id: params.id })),
);
