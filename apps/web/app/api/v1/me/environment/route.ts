import { getCurrentEnvironment, setCurrentEnvironment } from "@levelrail/services/operator/preference";
import { LevelrailError } from "@levelrail/spec/errors";
import { json, route } from "@/lib/api";

/** The caller's current environment (remembered, or the first project's production), with its project. */
export const GET = route(async ({ ctx }) => {
  const current = await getCurrentEnvironment({ ctx });
  if (!current) throw new LevelrailError("not_found", "you have no environment yet: create a project (POST /api/v1/projects) first");
  return json(current);
});

/** Body `{"environmentId"}`: remembers it for the caller, in every browser; not one of theirs is a 404. */
export const PUT = route(async ({ ctx, body }) => json(await setCurrentEnvironment({ ctx, input: await body() })));
