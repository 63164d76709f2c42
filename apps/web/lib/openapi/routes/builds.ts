// Builds of a git-sourced service (docs/operating/git-builds-and-previews.md#builds): list, one with its log (streamed with `?follow=true`), build now, cancel.
import { z } from "zod";
import { buildRequest } from "@levelrail/services/build/request";
import type { BuildLogLine, BuildView } from "@levelrail/services/build/view";
import { op } from "../operation";

const S = "/api/v1/environments/{envId}/services/{service}";
const time = z.string().describe("an ISO 8601 time");

export const buildSchema = z.looseObject({
  id: z.string(),
  serviceId: z.string(),
  commit: z.string().nullable().describe("the commit built (40 hex); null until the worker resolved the ref"),
  ref: z.string(),
  trigger: z.enum(["push", "poll", "manual", "preview"]),
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled", "superseded"]),
  step: z.string().nullable().describe("where a running build is (fetching, building, deploying), or the failing Dockerfile step of a failed one"),
  message: z.string(),
  deploy: z.boolean(),
  imageId: z.string().nullable(),
  image: z.string().nullable().describe("`levelrail.invalid/<short>/<serviceId>:<commit>` (built before: `<short>/<serviceId>:<commit>`)"),
  createdBy: z.string(),
  createdAt: time,
  startedAt: time.nullable(),
  finishedAt: time.nullable(),
  durationMs: z.number().nullable(),
});
const logLineSchema = z.looseObject({ seq: z.number(), at: time, line: z.string() });
const buildWithLogSchema = buildSchema.extend({ log: z.array(logLineSchema) });
const buildQuery = z.strictObject({ follow: z.enum(["true", "false"]).optional().describe("`true`: stream the log as Server-Sent Events until the build ends") });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
// The schemas describe the views (a mismatch is a type error here).
const checks: [Same<z.output<typeof buildSchema>["status"], BuildView["status"]>, Same<z.output<typeof logLineSchema>["seq"], BuildLogLine["seq"]>] = [true, true];
void checks;

export const BUILD_ROUTES = [
  op({ method: "get", path: `${S}/builds`, id: "listBuilds", tag: "Builds", summary: "The service's builds, newest first (at most 100)", query: z.strictObject({ limit: z.string().optional() }), ok: { status: 200, description: "the builds", schema: z.array(buildSchema) } }),
  op({ method: "post", path: `${S}/builds`, id: "requestBuild", tag: "Builds", summary: "Build the head of the source's ref (or `ref`) now; deployed once built unless `deploy: false`", body: buildRequest, ok: { status: 202, description: "the build, queued", schema: buildSchema } }),
  op({
    method: "get",
    path: `${S}/builds/{id}`,
    id: "getBuild",
    tag: "Builds",
    summary: "One build with its log; `?follow=true` streams the log",
    query: buildQuery,
    ok: { status: 200, description: "the build and its log", schema: buildWithLogSchema, other: { contentType: "text/event-stream", description: "with `follow=true`: Server-Sent Events, one per line, then `end`" } },
  }),
  op({ method: "post", path: `${S}/builds/{id}/cancel`, id: "cancelBuild", tag: "Builds", summary: "Cancel a queued or running build (a running one is stopped on the engine)", ok: { status: 202, description: "the build", schema: buildSchema } }),
];
