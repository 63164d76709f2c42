// The organization's configuration (backup targets, registry credentials, notification channels),
// fleet-wide reads (services, hook runs, metrics), the caller's preference, and the retired flat routes.
import { z } from "zod";
import { deployMetricsQuery } from "@levelrail/services/metrics/deploys";
import { doraQuery } from "@levelrail/services/metrics/dora";
import { deliveriesQuery } from "@levelrail/services/notifications/deliveries";
import { chooseEnvironmentInput } from "@levelrail/services/operator/preference";
import { servicePageQuery } from "@levelrail/services/service/view";
import { backupTargetInput, registryCredentialInput } from "@levelrail/spec/config";
import { emailChannelPatch, notificationChannelInput, webhookChannelPatch } from "@levelrail/spec/notifications";
import { op } from "../operation";
import { anyList, anyObject, currentEnvironmentSchema, errorSchema, openApiSchema, storageEnvKeysSchema } from "../schemas";
import { hookRunDetailSchema, serviceListSchema } from "../schemas-more";
import { backupTargetSchema, registryCredentialSchema } from "../schemas-org";

export const CONFIG_ROUTES = [
  op({ method: "get", path: "/api/v1/backup-targets", id: "listBackupTargets", tag: "Organization config", summary: "S3-compatible backup targets (the secret key is write-only)", ok: { status: 200, description: "the targets", schema: z.array(backupTargetSchema) } }),
  op({ method: "post", path: "/api/v1/backup-targets", id: "createBackupTarget", tag: "Organization config", summary: "Add a backup target (`orgId` in the body)", body: backupTargetInput, ok: { status: 201, description: "the target", schema: backupTargetSchema } }),
  op({ method: "delete", path: "/api/v1/backup-targets/{id}", id: "deleteBackupTarget", tag: "Organization config", summary: "Delete a backup target (409 naming a database whose schedule uses it)", ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: "/api/v1/registry-credentials", id: "listRegistryCredentials", tag: "Organization config", summary: "Private registry logins (the password is write-only)", ok: { status: 200, description: "the credentials", schema: z.array(registryCredentialSchema) } }),
  op({ method: "post", path: "/api/v1/registry-credentials", id: "createRegistryCredential", tag: "Organization config", summary: "Add a registry login", body: registryCredentialInput, ok: { status: 201, description: "the credential", schema: registryCredentialSchema } }),
  op({ method: "delete", path: "/api/v1/registry-credentials/{id}", id: "deleteRegistryCredential", tag: "Organization config", summary: "Delete a registry login", ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: "/api/v1/storage-env-keys", id: "listStorageEnvKeys", tag: "Organization config", summary: "The env keys a storage attachment sets", ok: { status: 200, description: "the keys", schema: storageEnvKeysSchema } }),
  op({ method: "get", path: "/api/v1/notification-channels", id: "listChannels", tag: "Notifications", summary: "Webhook and email channels (never a signing secret or SMTP password)", ok: { status: 200, description: "the channels", schema: anyList } }),
  op({ method: "post", path: "/api/v1/notification-channels", id: "createChannel", tag: "Notifications", summary: "Add a webhook or email channel", body: notificationChannelInput, ok: { status: 201, description: "the channel", schema: anyObject } }),
  op({ method: "get", path: "/api/v1/notification-channels/{id}", id: "getChannel", tag: "Notifications", summary: "One channel", ok: { status: 200, description: "the channel", schema: anyObject } }),
  op({ method: "patch", path: "/api/v1/notification-channels/{id}", id: "patchChannel", tag: "Notifications", summary: "Change a channel (fields of its kind)", body: z.union([webhookChannelPatch, emailChannelPatch]), ok: { status: 200, description: "the channel", schema: anyObject } }),
  op({ method: "delete", path: "/api/v1/notification-channels/{id}", id: "deleteChannel", tag: "Notifications", summary: "Delete a channel", ok: { status: 204, description: "deleted" } }),
  op({ method: "post", path: "/api/v1/notification-channels/{id}/test", id: "testChannel", tag: "Notifications", summary: "Send a test notification now", ok: { status: 200, description: "the delivery", schema: anyObject } }),
  op({ method: "get", path: "/api/v1/notification-channels/{id}/deliveries", id: "listDeliveries", tag: "Notifications", summary: "The channel's delivery log, newest first", query: deliveriesQuery, ok: { status: 200, description: "the deliveries", schema: anyList } }),
  op({
    method: "get",
    path: "/api/v1/services",
    id: "listServices",
    tag: "Services",
    summary: "Every service the caller can see, with its project and environment (`?limit=&cursor=` pages)",
    query: servicePageQuery.partial(),
    ok: { status: 200, description: "the services, or one page of them (`{services, nextCursor, total}`)", schema: serviceListSchema },
  }),
  op({
    method: "post",
    path: "/api/v1/services",
    id: "createServiceFlat",
    tag: "Services",
    summary: "Retired: services are created inside an environment",
    deprecated: true,
    ok: { status: 410, description: "`gone`, naming `POST /api/v1/environments/{envId}/services`", schema: errorSchema },
  }),
  op({ method: "get", path: "/api/v1/hook-runs/{id}", id: "getHookRun", tag: "Hooks", summary: "One hook run with its output", ok: { status: 200, description: "the run with its output", schema: hookRunDetailSchema } }),
  op({ method: "get", path: "/api/v1/metrics/deploys", id: "deployMetrics", tag: "Metrics", summary: "One sample per real cutover", query: deployMetricsQuery, ok: { status: 200, description: "the samples", schema: anyObject } }),
  op({ method: "get", path: "/api/v1/metrics/dora", id: "doraMetrics", tag: "Metrics", summary: "DORA figures and bands", query: doraQuery, ok: { status: 200, description: "the figures", schema: anyObject } }),
  op({ method: "get", path: "/api/v1/me/environment", id: "getCurrentEnvironment", tag: "Account", summary: "The caller's current environment (the UI's switcher)", ok: { status: 200, description: "the environment and its project", schema: currentEnvironmentSchema } }),
  op({ method: "put", path: "/api/v1/me/environment", id: "setCurrentEnvironment", tag: "Account", summary: "Choose the caller's current environment", body: chooseEnvironmentInput, ok: { status: 200, description: "the environment and its project", schema: currentEnvironmentSchema } }),
  op({ method: "get", path: "/api/v1/openapi.json", id: "getOpenApi", tag: "Meta", summary: "This document (public, cacheable)", public: true, ok: { status: 200, description: "the OpenAPI 3.1 document", schema: openApiSchema } }),
];
