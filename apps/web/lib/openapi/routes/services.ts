// Apps and services inside an environment: config, deploys, status, env, secrets, logs, metrics.
import { z } from "zod";
import { appInput } from "@levelrail/services/app/app";
import { secretInput } from "@levelrail/services/env/secrets";
import { hookRunsQuery } from "@levelrail/services/hooks/list";
import { serviceMetricsQuery } from "@levelrail/services/metrics/containers";
import { servicePageQuery } from "@levelrail/services/service/view";
import { deployInput, promoteInput, serviceCreate, servicePatch } from "@levelrail/spec/service";
import { op } from "../operation";
import { anyList, anyObject, appListItemSchema, appSchema, releaseSchema, secretSchema, serviceDetailSchema, serviceSchema, statusSchema } from "../schemas";
import { driftSchema, effectiveEnvEntrySchema, hookRunPageSchema, serviceListSchema } from "../schemas-more";

const E = "/api/v1/environments/{envId}";
const S = `${E}/services/{service}`;
/** The log route's query, described here: `apps/web/lib/logs/query.ts` parses it by hand. */
const logQuery = z.strictObject({
  since: z.string().optional().describe("an ISO time or a duration ago: 30s, 10m, 2h, 1d"),
  tail: z.string().optional().describe("lines before following: 0 to 10000, or `all` (default 500)"),
  container: z.string().optional().describe("an old, draining or hook container of this service (default: the active one, followed across deploys)"),
  follow: z.enum(["true", "false"]).optional().describe("`true`: stream new lines as Server-Sent Events"),
});
/** With `limit` or `cursor`: one page, `{services, nextCursor, total}`; without, the whole list. */
const servicesQuery = servicePageQuery.pick({ app: true, limit: true, cursor: true });
const release = { status: 202 as const, description: "the release, deploying", schema: releaseSchema };

export const SERVICE_ROUTES = [
  op({ method: "get", path: `${E}/apps`, id: "listApps", tag: "Apps", summary: "The environment's apps, each with its number of services", ok: { status: 200, description: "the apps", schema: z.array(appListItemSchema) } }),
  op({ method: "post", path: `${E}/apps`, id: "createApp", tag: "Apps", summary: "Create an app (its services share one private network)", body: appInput, ok: { status: 201, description: "the app", schema: appSchema } }),
  op({ method: "get", path: `${E}/apps/{app}`, id: "getApp", tag: "Apps", summary: "One app", ok: { status: 200, description: "the app", schema: appSchema } }),
  op({ method: "delete", path: `${E}/apps/{app}`, id: "deleteApp", tag: "Apps", summary: "Delete an app with its services", ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: `${E}/apps/{app}/hook-runs`, id: "listAppHookRuns", tag: "Hooks", summary: "Every hook run of the app's services, newest first", query: hookRunsQuery, ok: { status: 200, description: "one page of runs", schema: hookRunPageSchema } }),
  op({ method: "get", path: `${E}/services`, id: "listEnvironmentServices", tag: "Services", summary: "The environment's services (`?app=` filters; `?limit=&cursor=` pages)", query: servicesQuery, ok: { status: 200, description: "the services, or one page of them", schema: serviceListSchema } }),
  op({ method: "post", path: `${E}/services`, id: "createService", tag: "Services", summary: "Create a service (not deployed until asked; replicas above 1 or a placement: 409 on one engine)", body: serviceCreate, ok: { status: 201, description: "the service", schema: serviceSchema } }),
  op({ method: "get", path: S, id: "getService", tag: "Services", summary: "One service, with its domains' ownership status", ok: { status: 200, description: "the service", schema: serviceDetailSchema } }),
  op({ method: "patch", path: S, id: "patchService", tag: "Services", summary: "Change a service's config (fields given replace theirs; replicas above 1 or a placement: 409 on one engine)", body: servicePatch, ok: { status: 200, description: "the service", schema: serviceSchema } }),
  op({ method: "delete", path: S, id: "deleteService", tag: "Services", summary: "Delete a service and its containers", ok: { status: 204, description: "deleted" } }),
  op({ method: "post", path: `${S}/deploy`, id: "deployService", tag: "Deploys", summary: "Deploy now, optionally changing the image", body: deployInput, ok: release }),
  op({ method: "post", path: `${S}/restart`, id: "restartService", tag: "Deploys", summary: "A fresh container of the same image and config, through the same cutover", ok: release }),
  op({ method: "post", path: `${S}/rollback`, id: "rollbackService", tag: "Deploys", summary: "Deploy the previous successful release again", ok: release }),
  op({ method: "post", path: `${S}/promote`, id: "promoteService", tag: "Deploys", summary: "The same-named service in another environment of the project deploys the exact image id running here", body: promoteInput, ok: release }),
  op({ method: "get", path: `${S}/status`, id: "getServiceStatus", tag: "Services", summary: "What runs: phase, step, images, active container, last deploy, ingress, crash loop", ok: { status: 200, description: "the status", schema: statusSchema } }),
  op({ method: "get", path: `${S}/deploys`, id: "listReleases", tag: "Deploys", summary: "Release history, newest first (at most 100)", ok: { status: 200, description: "the releases", schema: z.array(releaseSchema) } }),
  op({ method: "get", path: `${S}/drift`, id: "getDrift", tag: "Services", summary: "What changed since the last deploy (key names and fields, never values)", ok: { status: 200, description: "the drift", schema: driftSchema } }),
  op({ method: "get", path: `${S}/env`, id: "getEffectiveEnv", tag: "Env vars", summary: "The service's effective environment; secret and credential values are null", ok: { status: 200, description: "every key with its source", schema: z.array(effectiveEnvEntrySchema) } }),
  op({ method: "get", path: `${S}/secrets`, id: "listSecrets", tag: "Secrets", summary: "The service's secrets: keys and update times, never values", ok: { status: 200, description: "the secrets", schema: z.array(secretSchema) } }),
  op({ method: "put", path: `${S}/secrets/{key}`, id: "putSecret", tag: "Secrets", summary: "Set a secret (write-only)", body: secretInput, ok: { status: 200, description: "the secret's key and time", schema: secretSchema } }),
  op({ method: "delete", path: `${S}/secrets/{key}`, id: "deleteSecret", tag: "Secrets", summary: "Delete a secret", ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: `${S}/hook-runs`, id: "listServiceHookRuns", tag: "Hooks", summary: "This service's hook runs, newest first", query: hookRunsQuery.omit({ service: true }), ok: { status: 200, description: "one page of runs", schema: hookRunPageSchema } }),
  op({ method: "get", path: `${S}/metrics`, id: "getServiceMetrics", tag: "Metrics", summary: "The last hour of CPU, memory and network samples", query: serviceMetricsQuery, ok: { status: 200, description: "the samples", schema: anyObject } }),
  op({ method: "post", path: `${S}/domains/check`, id: "checkDomains", tag: "Services", summary: "Check the service's domain ownership records now", ok: { status: 202, description: "the domains' status", schema: anyObject } }),
  op({
    method: "get",
    path: `${S}/logs`,
    id: "getLogs",
    tag: "Logs",
    summary: "Container logs; `?follow=true` streams them",
    query: logQuery,
    errors: [429],
    ok: { status: 200, description: "the lines", schema: anyObject, other: { contentType: "text/event-stream", description: "with `follow=true`: Server-Sent Events, one per line" } },
  }),
  op({ method: "get", path: `${S}/logs/containers`, id: "listLogContainers", tag: "Logs", summary: "The service's containers whose logs can be read (active, draining, old, hooks)", ok: { status: 200, description: "the containers", schema: anyList } }),
];
