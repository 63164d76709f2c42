import { type ObservedPreview, buildPreview, openPreview, previewOutcome, previewsToConverge, recordPreviewMessage, recordReport, removePreview } from "@levelrail/services/preview/converge";
import { type CallOptions, listOpenRequests, postStatus } from "@levelrail/services/preview/provider-api";
import { apiOfPreview, closeSwept, sweepTargets } from "@levelrail/services/preview/sweep";
import type { PreviewDeps } from "@levelrail/services/preview/worker-ctx";
import type { PreviewStore, StatusPoster } from "./reconcile";

/** The preview controller's store: the preview verbs of `@levelrail/services/preview`, as the worker. */
export function pgPreviewStore(d: PreviewDeps, call: CallOptions): PreviewStore {
  return {
    observe: () => previewsToConverge(d),
    outcome: (id) => previewOutcome(d, id),
    open: (id) => openPreview(d, id),
    build: (id) => buildPreview(d, id),
    remove: (id) => removePreview(d, id),
    reported: (id, reported, message) => recordReport(d, id, reported, message),
    message: (id, message) => recordPreviewMessage(d, id, message),
    async sweepTargets() {
      return (await sweepTargets(d)).map((t) => ({
        ttlHours: t.ttlHours,
        previews: t.previews,
        listOpen: t.api && t.repoPath ? () => listOpenRequests(t.api!, t.repoPath, call) : null,
      }));
    },
    close: (id, reason) => closeSwept(d, id, reason),
  };
}

/** Posts an outcome to the preview's status URL, with the repository's API token when one is configured. */
export function providerStatus(d: PreviewDeps, call: CallOptions): StatusPoster {
  return {
    async post(p: ObservedPreview, outcome, targetUrl) {
      if (!p.statusUrl) return;
      const api = await apiOfPreview(d, p.id);
      const words = { pending: "building the preview", success: "the preview is deployed", failure: "the preview's build failed" } as const;
      await postStatus(p.statusUrl, api, outcome, targetUrl, words[outcome], call);
    },
  };
}
