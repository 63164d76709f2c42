import { approvePreview } from "@levelrail/services/preview/approval";
import { json, route } from "@/lib/api";

/** A member with deploy rights approves a fork's or an outsider's preview at its head commit (`{commit}`). */
export const POST = route<{ id: string; previewId: string }>(async ({ ctx, params, body }) =>
  json(await approvePreview({ ctx, projectId: params.id, previewId: params.previewId, input: await body() })),
);
