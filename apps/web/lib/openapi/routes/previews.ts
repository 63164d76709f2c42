// Webhooks of git sources and previews of pull requests (docs/operating/git-builds-and-previews.md#the-webhook-what-to-paste-into-the-forge).
import { z } from "zod";
import { approveInput } from "@levelrail/services/preview/approval";
import { previewSettingsInput } from "@levelrail/services/preview/settings";
import { op } from "../operation";
import { anyObject } from "../schemas";

const previewSchema = z.object({
  id: z.string(),
  number: z.number().int(),
  repo: z.string(),
  headRef: z.string(),
  headCommit: z.string(),
  state: z.enum(["open", "closed", "refused"]),
  message: z.string(),
  environmentId: z.string().nullable(),
  environmentName: z.string().nullable(),
  url: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  closedAt: z.string().nullable(),
  fork: z.boolean(),
  outsider: z.boolean(),
  approval: z.enum(["not-needed", "awaiting", "approved"]),
  approvedCommit: z.string().nullable(),
  approvedBy: z.string().nullable(),
  withheld: z.array(z.object({ service: z.string(), key: z.string(), kind: z.enum(["secret", "database", "storage", "registry-credential", "git-credential"]) })),
});
const projectPreviewsSchema = z.object({
  settings: z.object({ baseEnvironmentId: z.string(), domain: z.string(), max: z.number().int(), ttlHours: z.number().int(), updatedAt: z.string() }).nullable(),
  previews: z.array(previewSchema),
});

export const PREVIEW_ROUTES = [
  op({
    method: "post",
    path: "/api/v1/hooks/git/{sourceId}",
    id: "receiveGitWebhook",
    tag: "Git",
    summary: "A push or pull/merge request webhook from GitHub, Gitea or GitLab",
    description:
      "Public: authenticated by the source's webhook secret, not a token (GitHub `X-Hub-Signature-256`, Gitea `X-Gitea-Signature`: HMAC-SHA256 of the raw body; GitLab `X-Gitlab-Token`). A wrong or missing signature is a 401 and builds nothing; a delivery id seen before answers `{duplicate: true}`. A push to the tracked branch queues a build that deploys (202); a pull or merge request opens, updates or closes its preview (202; 409 over the project's preview maximum, recorded on the preview). Anything else is acknowledged with what was ignored and why. The body is at most 1 MiB.",
    public: true,
    ok: { status: 202, description: "the build queued or the preview changed; 200 for a ping, a duplicate or an ignored event", schema: anyObject },
    errors: [401, 404, 409],
  }),
  op({ method: "get", path: "/api/v1/projects/{id}/previews", id: "getProjectPreviews", tag: "Previews", summary: "The project's preview settings (null: not set up) and its previews", ok: { status: 200, description: "the settings and previews", schema: projectPreviewsSchema } }),
  op({
    method: "put",
    path: "/api/v1/projects/{id}/previews",
    id: "putPreviewSettings",
    tag: "Previews",
    summary: "Set the project's previews: the base environment cloned, the domain (under a base domain of the installation), the maximum open and the time to live",
    body: previewSettingsInput,
    ok: { status: 200, description: "the settings and previews", schema: projectPreviewsSchema },
  }),
  op({
    method: "post",
    path: "/api/v1/projects/{id}/previews/{previewId}/approve",
    id: "approvePreview",
    tag: "Previews",
    summary: "Approve a fork's or an outside author's preview at its head commit",
    description:
      "A pull request whose head is in another repository (a fork), or whose author the forge does not mark as a member, builds nothing until a member with deploy rights (developer or above) approves its head commit; `commit` must be the head commit the preview shows (409 if the request moved on). Its environment is cloned without the base's secrets, credentials, storage targets and database attachments (listed in `withheld`). A new head commit needs a new approval. Audited `preview.approve`.",
    body: approveInput,
    ok: { status: 200, description: "the preview, approved", schema: previewSchema },
  }),
];
