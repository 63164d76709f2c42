// Git sources (docs/operating/git-builds-and-previews.md#git-sources-and-credentials): an organization's git credentials and a service's webhook secret. The
// source itself is a field of the service (`source`, in routes/services.ts: its repository, and its
// provider API `apiProvider`, `apiUrl`, `apiCredentialId` for previews); builds and the webhook route
// are described with them.
import { z } from "zod";
import { gitCredentialInput } from "@levelrail/spec/git";
import { op } from "../operation";
import { gitCredentialSchema, webhookSecretSchema } from "../schemas-git";

const O = "/api/v1/orgs/{id}";
const S = "/api/v1/environments/{envId}/services/{service}";

export const GIT_SOURCE_ROUTES = [
  op({ method: "get", path: `${O}/git-credentials`, id: "listGitCredentials", tag: "Git sources", summary: "The organization's git credentials: deploy keys (public half shown) and tokens (write-only)", ok: { status: 200, description: "the credentials", schema: z.array(gitCredentialSchema) } }),
  op({ method: "post", path: `${O}/git-credentials`, id: "createGitCredential", tag: "Git sources", summary: "Generate an SSH deploy key (`kind: ssh`) or seal an HTTPS token (`kind: token`)", body: gitCredentialInput, ok: { status: 201, description: "the credential, never its private key or token", schema: gitCredentialSchema } }),
  op({ method: "delete", path: `${O}/git-credentials/{credId}`, id: "deleteGitCredential", tag: "Git sources", summary: "Delete a git credential (409 naming the services whose source uses it, to fetch or as its provider API's token)", ok: { status: 204, description: "deleted" } }),
  op({ method: "post", path: `${S}/source/webhook-secret`, id: "rotateWebhookSecret", tag: "Git sources", summary: "A new webhook secret for the service's git source, shown once (409 for a service without one); the source itself, its provider API (`apiProvider`, `apiUrl`, `apiCredentialId`) included, is set with the service's POST/PATCH `source.git`", ok: { status: 200, description: "the new secret", schema: webhookSecretSchema } }),
];
