import { route } from "@/lib/api";
import { logCaps, logReader } from "@/lib/logs/engine";
import { serviceLogs } from "@/lib/logs/service-logs";

/** The service's container logs: `?since=`, `?tail=`, `?container=`, `?follow=true` (Server-Sent Events). */
export const GET = route<{ envId: string; service: string }>(async ({ ctx, req, params }) =>
  serviceLogs({ ctx, envId: params.envId, name: params.service, reader: logReader(), caps: logCaps(), req }),
);
