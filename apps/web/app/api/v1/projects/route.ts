import { createProject } from "@levelrail/services/project/create";
import { listProjects } from "@levelrail/services/project/list";
import { created, json, route } from "@/lib/api";

export const GET = route(async ({ ctx }) => json(await listProjects({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createProject({ ctx, input: await body() })));
