import { LevelrailError, errorBody, httpStatus } from "@levelrail/spec/errors";

/**
 * Every path under /api/v1 that no route serves: the JSON error of docs/api.md#errors (`not_found`, 404) with
 * the method and path, instead of the framework's HTML page. It names no resource and reads
 * nothing, so it answers the same signed in or not.
 */
function notFound(req: Request): Response {
  const path = new URL(req.url).pathname;
  const err = new LevelrailError("not_found", `no API route ${req.method} ${path}; the API's routes are listed in the README`);
  return Response.json(errorBody(err), { status: httpStatus(err.code) });
}

export const GET = notFound;
export const POST = notFound;
export const PUT = notFound;
export const PATCH = notFound;
export const DELETE = notFound;
export const HEAD = notFound;
