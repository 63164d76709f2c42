import { toNextJsHandler } from "better-auth/next-js";
import { LevelrailError, errorBody, httpStatus } from "@levelrail/spec/errors";
import { readCapped } from "@/lib/request-body";
import { server } from "@/lib/server";

/**
 * better-auth's routes, behind the same body cap as the API (413 before better-auth reads a byte
 * too many). Resolved per request so the environment is read at the first request, not at build.
 */
async function handler(req: Request): Promise<Response> {
  let body: Uint8Array | undefined;
  try {
    if (req.method !== "GET" && req.method !== "HEAD") body = await readCapped(req);
  } catch (err) {
    if (err instanceof LevelrailError) return Response.json(errorBody(err), { status: httpStatus(err.code) });
    throw err;
  }
  const capped = body === undefined ? req : new Request(req.url, { method: req.method, headers: req.headers, body: body as BodyInit });
  return server().auth.handler(capped);
}

export const { GET, POST, PATCH, PUT, DELETE } = toNextJsHandler(handler);
