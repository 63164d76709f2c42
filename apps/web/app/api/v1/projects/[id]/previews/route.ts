import { getProjectPreviews, putPreviewSettings } from "@levelrail/services/preview/settings";
import { json, route } from "@/lib/api";

/** The project's preview settings and its previews (docs/operating/git-builds-and-previews.md#previews-of-pull-requests); PUT replaces the settings. */
export const GET = route<{ id: string }>(async ({ ctx, params }) => json(await getProjectPreviews({ ctx, projectId: params.id })));

export const PUT = route<{ id: string }>(async ({ ctx, params, body }) => json(await putPreviewSettings({ ctx, projectId: params.id, input: await body() })));
