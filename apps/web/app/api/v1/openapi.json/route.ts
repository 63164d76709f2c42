import { createHash } from "node:crypto";
import { openApiDocument } from "@/lib/openapi/document";

/**
 * The OpenAPI 3.1 document of every /api/v1 route (CONTRACT §5). Public: it describes the API and
 * holds nothing of any organization. Built once per process from the routes' zod schemas, answered
 * with a strong ETag (304 when the client has it) and cacheable for five minutes.
 */
let cached: { body: string; etag: string } | undefined;

export const GET = (req: Request): Response => {
  if (!cached) {
    const body = JSON.stringify(openApiDocument());
    cached = { body, etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"` };
  }
  const headers = { etag: cached.etag, "cache-control": "public, max-age=300" };
  if (req.headers.get("if-none-match") === cached.etag) return new Response(null, { status: 304, headers });
  return new Response(cached.body, { headers: { ...headers, "content-type": "application/json; charset=utf-8" } });
};
