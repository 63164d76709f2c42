import { getBuild } from "@levelrail/services/build/view";
import { json, route } from "@/lib/api";
import { buildLogStream } from "@/lib/logs/build-log";
import { logCaps } from "@/lib/logs/engine";

type Params = { envId: string; service: string; id: string };

/** One build with its log; `?follow=true` streams the log as Server-Sent Events until the build ends (a live stream's slot, as container logs). */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const input = { ctx, envId: params.envId, name: params.service, id: params.id };
  if (new URL(req.url).searchParams.get("follow") === "true") return buildLogStream({ ...input, req, caps: logCaps() });
  return json(await getBuild(input));
});
