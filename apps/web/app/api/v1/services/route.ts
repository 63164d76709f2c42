import { listServices } from "@levelrail/services/service/view";
import { createService } from "@levelrail/services/service/write";
import { created, json, route } from "@/lib/api";

/** `?app=<name>` lists one app's services. */
export const GET = route(async ({ ctx, req }) => {
  const app = new URL(req.url).searchParams.get("app") ?? undefined;
  return json(await listServices({ ctx, app }));
});

export const POST = route(async ({ ctx, body }) => created(await createService({ ctx, input: await body() })));
