import { deleteApp, getApp } from "@levelrail/services/app/app";
import { json, noContent, route } from "@/lib/api";

type Params = { name: string };

export const GET = route<Params>(async ({ ctx, params }) => json(await getApp({ ctx, name: params.name })));

export const DELETE = route<Params>(async ({ ctx, params }) => {
  await deleteApp({ ctx, name: params.name });
  return noContent();
});
