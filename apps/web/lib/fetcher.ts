/** An error answer of the API, with the field it names (docs/api.md#errors). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field: string | undefined,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

function errorOf(status: number, body: unknown): ApiError {
  if (typeof body === "object" && body !== null && "error" in body) {
    const e = (body as { error: { code?: unknown; message?: unknown; field?: unknown } }).error;
    return new ApiError(
      status,
      typeof e.code === "string" ? e.code : "internal",
      typeof e.message === "string" ? e.message : `request failed (${status})`,
      typeof e.field === "string" ? e.field : undefined,
    );
  }
  return new ApiError(status, "internal", `request failed (${status})`, undefined);
}

/** The last 200 answer of a GET, kept so that a `304 Not Modified` can stand for it. */
interface Validated {
  etag: string;
  body: unknown;
}

/** Most URLs a tab keeps validated answers for (list pages come and go as the operator pages). */
const MAX_VALIDATED = 100;

/**
 * Per-URL ETags and bodies of one tab: a GET sends `If-None-Match` with the ETag it holds and,
 * on 304, answers the body it kept (the same object, so React Query sees no change).
 */
export class ValidatedCache {
  private readonly entries = new Map<string, Validated>();

  get(url: string): Validated | undefined {
    return this.entries.get(url);
  }

  set(url: string, entry: Validated): void {
    this.entries.delete(url);
    this.entries.set(url, entry);
    if (this.entries.size > MAX_VALIDATED) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  delete(url: string): void {
    this.entries.delete(url);
  }
}

const validated = new ValidatedCache();

/**
 * Calls /api/v1 with the session cookie; a signed-out answer sends the browser to /login. A GET is
 * conditional when an earlier answer of the same URL carried an ETag (the polled lists): an
 * unchanged answer is a bodiless 304 and the kept body is returned.
 */
export async function api<T>(
  path: string,
  init: { method?: string; body?: unknown } = {},
  deps: { fetch: typeof fetch; cache: ValidatedCache } = { fetch: (...args) => fetch(...args), cache: validated },
): Promise<T> {
  const url = `/api/v1${path}`;
  const method = init.method ?? "GET";
  const held = method === "GET" ? deps.cache.get(url) : undefined;
  const headers: Record<string, string> = {};
  if (init.body !== undefined) headers["content-type"] = "application/json";
  if (held) headers["if-none-match"] = held.etag;
  const res = await deps.fetch(url, {
    method,
    credentials: "same-origin",
    // This cache replaces the browser's: it neither stores these answers nor adds its own validators.
    cache: "no-store",
    headers,
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  if (res.status === 304 && held) return held.body as T;
  if (res.status === 204) return undefined as T;
  const body: unknown = await res.json().catch(() => null);
  if (res.status === 401) window.location.assign("/login");
  if (!res.ok) {
    if (method === "GET") deps.cache.delete(url);
    throw errorOf(res.status, body);
  }
  if (method === "GET") {
    const etag = res.headers.get("etag");
    if (etag) deps.cache.set(url, { etag, body });
    else deps.cache.delete(url);
  }
  return body as T;
}
