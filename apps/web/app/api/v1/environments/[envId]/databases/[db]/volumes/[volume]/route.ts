import { removeVolume } from "@levelrail/services/database/write";
import { noContent, route } from "@/lib/api";

/** A previous volume (kept after a restore replaced the data) goes; body `{"confirm": "<volume name>"}`. */
export const DELETE = route<{ envId: string; db: string; volume: string }>(async ({ ctx, params, body }) => {
  await removeVolume({ ctx, envId: params.envId, name: params.db, volume: params.volume, input: await body() });
  return noContent();
});
