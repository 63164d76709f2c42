/** An error answer of the API, with the field it names (CONTRACT §4). */
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

/** Calls /api/v1 with the session cookie; a signed-out answer sends the browser to /login. */
export async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const res = await fetch(`/api/v1${path}`, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: init.body === undefined ? {} : { "content-type": "application/json" },
    body: init.body === undefined ? null : JSON.stringify(init.body),
  });
  if (res.status === 204) return undefined as T;
  const body: unknown = await res.json().catch(() => null);
  if (res.status === 401) window.location.assign("/login");
  if (!res.ok) throw errorOf(res.status, body);
  return body as T;
}
