import { createHash } from "node:crypto";

/**
 * Conditional GETs for the polled lists (issue 9): the ETag is a strong validator, a hash of the
 * exact JSON body, so an unchanged answer costs a `304 Not Modified` with no body.
 */

/** The strong ETag of a body: `"<sha-256, base64url, 27 chars>"`. */
export function etagOf(body: string): string {
  return `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
}

/**
 * Whether an `If-None-Match` header matches `etag` (RFC 9110 §13.1.2: `*`, or a list of
 * entity-tags compared weakly, so a `W/` prefix a proxy added still matches).
 */
export function noneMatch(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const text = header.trim();
  if (text === "*") return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, "");
  const want = opaque(etag);
  return text.split(",").some((tag) => opaque(tag) === want);
}

/** Revalidate every time: a cache may keep the answer but must ask before using it. */
const CACHE_CONTROL = "private, no-cache";

/**
 * `data` as JSON with its ETag, or a bodiless 304 when the request already holds that body.
 * Only for 200 answers of GETs: errors go through the ordinary path.
 */
export function conditionalJson(req: Request, data: unknown): Response {
  const body = JSON.stringify(data);
  const etag = etagOf(body);
  const headers = { etag, "cache-control": CACHE_CONTROL };
  if (noneMatch(req.headers.get("if-none-match"), etag)) return new Response(null, { status: 304, headers });
  return new Response(body, { status: 200, headers: { ...headers, "content-type": "application/json" } });
}

/**
 * The GET handler of a public document built once per process (the OpenAPI document, the spec's
 * JSON Schema): its strong ETag, five minutes in any cache, a bodiless 304 when the client holds it.
 */
export function publicDocument(build: () => unknown, contentType = "application/json"): (req: Request) => Response {
  let cached: { body: string; etag: string } | undefined;
  return (req) => {
    if (!cached) {
      const body = JSON.stringify(build());
      cached = { body, etag: etagOf(body) };
    }
    const headers = { etag: cached.etag, "cache-control": "public, max-age=300" };
    if (noneMatch(req.headers.get("if-none-match"), cached.etag)) return new Response(null, { status: 304, headers });
    return new Response(cached.body, { headers: { ...headers, "content-type": `${contentType}; charset=utf-8` } });
  };
}
