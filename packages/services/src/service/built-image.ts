import { eq } from "drizzle-orm";
import { service } from "@levelrail/db/schema/services";
import { LevelrailError } from "@levelrail/spec/errors";
import { DEFAULT_SHORT_NAME, builtImageServiceId } from "@levelrail/spec/naming";
import type { Ctx } from "../context";

/**
 * A built image (`levelrail.invalid/<short>/<serviceId>:<commit>`, or the older `<short>/<serviceId>:<commit>`)
 * belongs to its service's organization: naming one of another organization's services (or of a
 * service that does not exist) answers 404 naming `image`, as an image that does not exist would,
 * so nothing is learnt of what another organization built. The worker checks the image itself again.
 */
export async function refuseOthersBuiltImage(ctx: Ctx, orgId: string, image: string | null | undefined): Promise<void> {
  if (!image) return;
  const serviceId = builtImageServiceId(ctx.shortName ?? DEFAULT_SHORT_NAME, image);
  if (serviceId === null) return;
  const [row] = await ctx.db.select({ orgId: service.orgId }).from(service).where(eq(service.id, serviceId));
  if (row?.orgId !== orgId) throw new LevelrailError("not_found", `image: no such image ${image}`, { field: "image" });
}
