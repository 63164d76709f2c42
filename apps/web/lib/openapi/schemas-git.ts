// Response shapes of git sources and git credentials (docs/operating/git-builds-and-previews.md#git-sources-and-credentials), pinned to their view types the
// same way as schemas.ts: a service's source, a credential (never its private key or token), and the
// one answer that shows a new webhook secret.
import { z } from "zod";
import type { WebhookSecretView } from "@levelrail/services/service/source";
import { GIT_CREDENTIAL_KINDS, GIT_PROVIDERS, type GitCredentialView, type SourceView } from "@levelrail/spec/git";

/** True only when A and B are the same type (each assignable to the other). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

const time = z.string().describe("ISO 8601 date-time");
const id = z.string().describe("UUID");

export const gitSourceViewSchema = z.strictObject({
  url: z.string(),
  ref: z.string(),
  path: z.string(),
  dockerfile: z.string(),
  credentialId: id.nullable(),
  buildArgs: z.array(z.string()),
  target: z.string().nullable(),
  pollIntervalSeconds: z.number().int().nullable(),
  apiProvider: z.enum(GIT_PROVIDERS).nullable().describe("the provider's API previews use (open requests, commit statuses); null: none"),
  apiUrl: z.string().nullable().describe("its base URL: https://api.github.com, https://<gitea>/api/v1, https://<gitlab>/api/v4"),
  apiCredentialId: id.nullable().describe("a token credential of the organization sent to that API; null: none"),
  sourceId: id.describe("the `{sourceId}` of the webhook route"),
  webhookPath: z.string().describe("`/api/v1/hooks/git/<sourceId>`, after the panel's public URL"),
  lastError: z.string().describe("the last failure to reach the repository (\"\" once reached)"),
  lastSeenCommit: z.string().nullable(),
  webhookSecret: z.string().optional().describe("only in the answer that made it: shown once"),
});

export const sourceSchema = z
  .union([z.strictObject({ image: z.string() }), z.strictObject({ git: gitSourceViewSchema })])
  .describe('`{"image": "…"}` or `{"git": {…}}`');

export const gitCredentialSchema = z.strictObject({
  id,
  name: z.string(),
  kind: z.enum(GIT_CREDENTIAL_KINDS),
  publicKey: z.string().nullable().describe("`ssh-ed25519 AAAA… levelrail-<name>` to add to the repository; null for a token"),
  username: z.string().nullable(),
  hosts: z.array(z.string()).describe("the hosts it may be sent to (`host`: any port, `host:port`: that port only); a deploy key with none goes to any host"),
  createdAt: time,
});

export const webhookSecretSchema = z.strictObject({ sourceId: id, webhookPath: z.string(), webhookSecret: z.string().describe("shown once") });

const checks: [Same<z.output<typeof sourceSchema>, SourceView>, Same<z.output<typeof gitCredentialSchema>, GitCredentialView>, Same<z.output<typeof webhookSecretSchema>, WebhookSecretView>] = [true, true, true];
void checks;
