import { deleteApp, getApp } from "@levelrail/services/app/app";
import { json, noContent, route } from "@/lib/api";

type Params = { envId: string; app: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await getApp({ ctx, envId: params.envId, name: params.app })));

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteApp({ ctx, envId: params.envId, name: params.app });
  return noContent();
});
