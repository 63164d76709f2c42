import { getBuild } from "@levelrail/services/build/view";
import { json, route } from "@/lib/api";
import { buildLogStream } from "@/lib/logs/build-log";

type Params = { envId: string; service: string; id: string };

/** One build with its log; `?follow=true` streams the log as Server-Sent Events until the build ends. */
export const GET = route<Params>(async ({ ctx, req, params }) => {
  const input = { ctx, envId: params.envId, name: params.service, id: params.id };
  if (new URL(req.url).searchParams.get("follow") === "true") return buildLogStream({ ...input, req });
  return json(await getBuild(input));
});
