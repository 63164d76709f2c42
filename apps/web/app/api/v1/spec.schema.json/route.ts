import { createHash } from "node:crypto";
import { specJsonSchema } from "@levelrail/spec/env-spec";

/**
 * The JSON Schema of the spec file (CONTRACT §10), generated from the API's zod schemas. Public,
 * like the OpenAPI document beside it: an editor validates a spec against it without a token, and
 * it holds nothing of any organization. Built once per process; a strong ETag and five minutes' cache.
 */
let cached: { body: string; etag: string } | undefined;

export const GET = (req: Request): Response => {
  if (!cached) {
    const body = JSON.stringify(specJsonSchema());
    cached = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  }
  const headers = { etag: cached.etag, "cache-control": "public, max-age=300" };
  if (req.headers.get("if-none-match") === cached.etag) return new Response(null, { status: 304, headers });
  return new Response(cached.body, { headers: { ...headers, "content-type": "application/schema+json; charset=utf-8" } });
};
